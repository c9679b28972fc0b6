import type { MigrationInterface, QueryRunner } from 'typeorm';
import { openStoredAgentSecrets, sealStoredAgentSecrets } from '../../domain/agents/agent-secrets';
import { config } from '../../platform/config';
import { loadSecrets, type Secrets } from '../../telephony/secrets';

/**
 * Organizations' credentials (named secrets that webhooks and tools send), their secret fields
 * sealed under SECRETS_KEY like telephony credentials; and the secrets agent versions already hold
 * (webhook header values, the QA node's API key) sealed in place. Sealing needs SECRETS_KEY, which
 * SQL does not have, so the second step runs in the migration process, and only reads the key when
 * some version holds a secret.
 */
export class Credentials1795000004200 implements MigrationInterface {
  name = 'Credentials1795000004200';

  constructor(private readonly secrets: () => Secrets = () => loadSecrets(config())) {}

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE credentials (
         id serial PRIMARY KEY,
         uuid uuid NOT NULL UNIQUE,
         organization_id integer NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
         name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
         description text,
         credential_type text NOT NULL
           CHECK (credential_type IN ('api_key', 'bearer_token', 'basic_auth', 'custom_header')),
         credential_data jsonb NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now(),
         updated_at timestamptz NOT NULL DEFAULT now(),
         CONSTRAINT credentials_organization_id_name_key UNIQUE (organization_id, name)
       )`,
    );
    await sealStoredAgentSecrets((sql, parameters) => q.query(sql, parameters), this.secrets);
  }

  async down(q: QueryRunner): Promise<void> {
    await openStoredAgentSecrets((sql, parameters) => q.query(sql, parameters), this.secrets);
    await q.query(`DROP TABLE credentials`);
  }
}
