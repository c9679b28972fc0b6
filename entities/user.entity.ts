import { Column, Entity } from 'typeorm';
import { TimestampedEntity } from './base';

@Entity('users')
export class User extends TimestampedEntity {
  @Column({ type: 'integer' })
  organizationId: number;

  /** Stored lower-cased; unique across the service. */
  @Column({ type: 'text' })
  email: string;

  @Column({ type: 'text', nullable: true })
  name: string | null;

  @Column({ type: 'text' })
  passwordHash: string;

  /** Written into each session token; raised to revoke every token issued before. */
  @Column({ type: 'integer', default: 0 })
  sessionGeneration: number;
}
