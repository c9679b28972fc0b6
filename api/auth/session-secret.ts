import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Config } from '../../platform/config';
import { readOrCreateSecretFile } from '../../platform/data-dir-secret';

const MIN_LENGTH = 32;

/**
 * The key session tokens are signed with: SESSION_SECRET, or (outside production, where config
 * requires SESSION_SECRET) a random one generated once and kept in `${DATA_DIR}/session-secret`,
 * readable only by its owner, so tokens survive restarts. The value is never logged.
 */
export function loadSessionSecret(config: Pick<Config, 'SESSION_SECRET' | 'DATA_DIR'>): string {
  if (config.SESSION_SECRET) return config.SESSION_SECRET;
  const secret = readOrCreateSecretFile(config.DATA_DIR, 'session-secret', () => randomBytes(48).toString('base64url'));
  if (secret.length < MIN_LENGTH) {
    const file = join(config.DATA_DIR, 'session-secret');
    throw new Error(`${file} holds fewer than ${MIN_LENGTH} characters: delete it to generate a new secret`);
  }
  return secret;
}
