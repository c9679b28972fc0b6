import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One dial counted against an organization's frequency caps for a number, claimed at dial time;
 * `dial_key` (workflow id and attempt, as the provider idempotency key) makes a claim once.
 */
@Entity('dial_claims')
export class DialClaim {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'integer' })
  organizationId: number;

  @Column({ type: 'text' })
  phoneNumber: string;

  @Column({ type: 'text', unique: true })
  dialKey: string;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  claimedAt: Date;
}
