import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Organizations' own speech-provider API keys, sealed under SECRETS_KEY like telephony secrets.
 * One row per (organization, provider), which is also how the API and the call pipeline find a
 * key, so that pair is the primary key and there is no surrogate id. No base URL column: provider
 * origins stay service settings (*_BASE_URL, LLM_BASE_URL), so a tenant cannot point the service's
 * sockets, and call audio, at an address of its choosing.
 */
export class SpeechCredentials1795000001200 implements MigrationInterface {
  name = 'SpeechCredentials1795000001200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE speech_credentials (
        organization_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        provider text NOT NULL CHECK (provider IN ('cartesia', 'deepgram', 'elevenlabs', 'openai')),
        encrypted_api_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, provider)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE speech_credentials`);
  }
}
