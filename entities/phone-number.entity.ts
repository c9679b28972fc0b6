import { Column, Entity } from 'typeorm';
import { TimestampedEntity } from './base';

export type AddressType = 'pstn' | 'sip_uri' | 'sip_extension';

@Entity('phone_numbers')
export class PhoneNumber extends TimestampedEntity {
  @Column({ type: 'integer' })
  organizationId: number;

  @Column({ type: 'integer' })
  telephonyConfigurationId: number;

  @Column({ type: 'text' })
  address: string;

  @Column({ type: 'text' })
  addressNormalized: string;

  @Column({ type: 'text' })
  addressType: AddressType;

  @Column({ type: 'text', nullable: true })
  countryCode: string | null;

  @Column({ type: 'text', nullable: true })
  label: string | null;

  @Column({ type: 'integer', nullable: true })
  inboundWorkflowId: number | null;

  @Column({ type: 'boolean', default: true })
  isActive: boolean;

  @Column({ type: 'boolean', default: false })
  isDefaultCallerId: boolean;

  @Column({ type: 'jsonb', default: {} })
  extraMetadata: Record<string, unknown>;
}
