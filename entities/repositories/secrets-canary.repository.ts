import type { DataSource } from 'typeorm';

/** The check value sealed under the deployment's key at its first start. */
export interface SecretsCanary {
  sealed: string;
  created_at: Date;
}

/**
 * Values stored sealed before the canary existed, one of each kind: a deployment upgraded with
 * the wrong key is refused too, before its canary would be sealed with that key.
 */
const SEALED_SAMPLES = `
  SELECT sealed FROM (
    (SELECT encrypted_api_key AS sealed FROM speech_credentials LIMIT 1)
    UNION ALL (SELECT secret FROM organization_webhook_secrets LIMIT 1)
    UNION ALL (SELECT field.value ->> 'enc'
                 FROM telephony_configurations, jsonb_each(credentials) AS field
                WHERE jsonb_typeof(field.value) = 'object' AND field.value ? 'enc'
                LIMIT 1)
  ) AS samples`;

/** The secrets canary (one row), and samples of what the database stores sealed. */
export function createSecretsCanaryRepository(dataSource: DataSource) {
  return {
    async canary(): Promise<SecretsCanary | undefined> {
      const [row] = await dataSource.query<SecretsCanary[]>(
        'SELECT sealed, created_at FROM secrets_canary WHERE id = 1',
      );
      return row;
    },

    /** One sealed value of each kind the database stores, where it stores any. */
    async sealedSamples(): Promise<string[]> {
      const samples = await dataSource.query<{ sealed: string }[]>(SEALED_SAMPLES);
      return samples.map((sample) => sample.sealed);
    },

    /** Stores the canary unless another start stored one first; whether this one was stored. */
    async insertCanary(sealed: string): Promise<boolean> {
      const inserted = await dataSource.query<unknown[]>(
        'INSERT INTO secrets_canary (id, sealed) VALUES (1, $1) ON CONFLICT (id) DO NOTHING RETURNING id',
        [sealed],
      );
      return inserted.length > 0;
    },
  };
}
