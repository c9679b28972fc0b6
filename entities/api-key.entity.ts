import { Column, Entity } from 'typeorm';
import { CreatedEntity } from './base';

/** Only the SHA-256 of a key is stored; the key itself is shown once, at creation. */
@Entity('api_keys')
export class ApiKey extends CreatedEntity {
  @Column({ type: 'integer' })
  organizationId: number;

  /** The user who created the key; requests made with it act as this user. */
  @Column({ type: 'integer' })
  userId: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text' })
  keyPrefix: string;

  @Column({ type: 'text' })
  keyHash: string;

  /** `read`, `calls` or `admin` (api/auth/scopes.ts). */
  @Column({ type: 'text', default: 'admin' })
  scope: 'read' | 'calls' | 'admin';

  @Column({ type: 'boolean', default: true })
  isActive: boolean;

  @Column({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  archivedAt: Date | null;
}
