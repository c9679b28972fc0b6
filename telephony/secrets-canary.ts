import type { DataSource } from 'typeorm';
import { createSecretsCanaryRepository } from '../entities/repositories/secrets-canary.repository';
import type { Secrets } from './secrets';

/** What the canary seals: any fixed text; only whether it opens matters. */
const CANARY_TEXT = 'switchboard secrets canary';

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
  const canaries = createSecretsCanaryRepository(dataSource);
  let canary = await canaries.canary();
  let sealedNow = false;
  if (!canary) {
    if ((await canaries.sealedSamples()).some((sealed) => !opens(secrets, sealed))) {
      throw new SecretsKeyMismatchError(keySource, 'its stored credentials were sealed');
    }
    sealedNow = await canaries.insertCanary(secrets.seal(CANARY_TEXT));
    canary = await canaries.canary();
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
