import { Column, Entity } from 'typeorm';
import { TimestampedEntity } from './base';

/** A provider account of the organization; `credentials` holds the provider's fields. */
@Entity('telephony_configurations')
export class TelephonyConfiguration extends TimestampedEntity {
  @Column({ type: 'integer' })
  organizationId: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  provider: string;

  @Column({ type: 'jsonb', default: {} })
  credentials: Record<string, unknown>;

  @Column({ type: 'boolean', default: false })
  isDefaultOutbound: boolean;

  /** Dials per second across every call of this configuration; null: the provider's default. */
  @Column({
    type: 'numeric',
    precision: 7,
    scale: 3,
    nullable: true,
    transformer: {
      to: (value: number | null | undefined) => value,
      from: (value: string | null) => (value === null ? null : Number(value)),
    },
  })
  callsPerSecond: number | null;
}
