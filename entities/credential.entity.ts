import { Column, Entity } from 'typeorm';
import { TimestampedEntity } from './base';

/** `api_key`, `bearer_token`, `basic_auth` or `custom_header` (a CHECK constraint keeps it so). */
export type CredentialType = 'api_key' | 'bearer_token' | 'basic_auth' | 'custom_header';

/**
 * A named secret of an organization that webhooks (and tools) send to the outside, referenced by
 * `uuid` from agent definitions so that definitions never carry the secret itself.
 */
@Entity('credentials')
export class Credential extends TimestampedEntity {
  @Column({ type: 'uuid' })
  uuid: string;

  @Column({ type: 'integer' })
  organizationId: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'text' })
  credentialType: CredentialType;

  /** The type's fields; each secret one sealed as `{"enc": "v1.…"}` under SECRETS_KEY, never in clear. */
  @Column({ type: 'jsonb' })
  credentialData: Record<string, unknown>;
}
