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
}
