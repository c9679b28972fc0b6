import type { DataSource } from 'typeorm';
import type { Secrets } from './secrets';

/** What the canary seals: any fixed text; only whether it opens matters. */
const CANARY_TEXT = 'switchboard secrets canary';

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

export class SecretsKeyMismatchError extends Error {
  constructor(keySource: string, evidence: string) {
    super(
      `${keySource} cannot decrypt what this database stores: ${evidence} with another key. ` +
        'Start with the key this deployment was first started with (for example the SECRETS_KEY of the file ' +
        '`npm run secrets:init` wrote): stored telephony credentials, speech keys and webhook signing secrets ' +
        'cannot be read with any other. Nothing was changed.',
    );
    this.name = 'SecretsKeyMismatchError';
  }
}

const opens = (secrets: Secrets, sealed: string): boolean => {
  try {
    secrets.open(sealed);
    return true;
  } catch {
    return false;
  }
};

/**
 * Refuses a start whose key cannot open what the database stores (SecretsKeyMismatchError, naming
 * `keySource`). The first start seals the canary with its key; concurrent first starts agree on
 * one row, and a process whose key differs from the winner's is refused like any later one.
 */
export async function verifySecretsKey(
  dataSource: DataSource,
  secrets: Secrets,
  keySource: string,
): Promise<'sealed' | 'verified'> {
  const read = async () =>
    (
      await dataSource.query<{ sealed: string; created_at: Date }[]>(
        'SELECT sealed, created_at FROM secrets_canary WHERE id = 1',
      )
    )[0];
  let canary = await read();
  let sealedNow = false;
  if (!canary) {
    const samples = await dataSource.query<{ sealed: string }[]>(SEALED_SAMPLES);
    if (samples.some((sample) => !opens(secrets, sample.sealed))) {
      throw new SecretsKeyMismatchError(keySource, 'its stored credentials were sealed');
    }
    const inserted = await dataSource.query<unknown[]>(
      'INSERT INTO secrets_canary (id, sealed) VALUES (1, $1) ON CONFLICT (id) DO NOTHING RETURNING id',
      [secrets.seal(CANARY_TEXT)],
    );
    sealedNow = inserted.length > 0;
    canary = await read();
    if (!canary) throw new Error('the secrets canary was not stored');
  }
  if (!opens(secrets, canary.sealed)) {
    throw new SecretsKeyMismatchError(
      keySource,
      `the check value its first start stored (${canary.created_at.toISOString()}) was sealed`,
    );
  }
  return sealedNow ? 'sealed' : 'verified';
}
