import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** The first answer to a call request sent with an `Idempotency-Key` (kept 24 hours). */
@Entity('call_idempotency_keys')
export class CallIdempotencyKey {
  @PrimaryColumn({ type: 'integer' })
  organizationId: number;

  @PrimaryColumn({ type: 'text' })
  key: string;

  /** SHA-256 of the route and the request body. */
  @Column({ type: 'text' })
  requestHash: string;

  /** Null while the first request is still being served. */
  @Column({ type: 'jsonb', nullable: true })
  response: Record<string, unknown> | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
