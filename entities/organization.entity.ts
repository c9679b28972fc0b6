import { Column, Entity } from 'typeorm';
import { TimestampedEntity } from './base';

/** The tenant: every resource belongs to exactly one organization. */
@Entity('organizations')
export class Organization extends TimestampedEntity {
  @Column({ type: 'text' })
  name: string;
}
