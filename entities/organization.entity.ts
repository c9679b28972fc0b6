import { Column, Entity } from 'typeorm';
import { TimestampedEntity } from './base';

/** The tenant: every resource belongs to exactly one organization. */
@Entity('organizations')
export class Organization extends TimestampedEntity {
  @Column({ type: 'text' })
  name: string;

  /** Recordings and transcripts of runs older than this many days are erased; null: kept. */
  @Column({ type: 'integer', nullable: true })
  retentionDays: number | null;
}
