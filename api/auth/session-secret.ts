import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../platform/config';

const MIN_LENGTH = 32;

/**
 * The key session tokens are signed with: SESSION_SECRET, or (outside production, where config
 * requires SESSION_SECRET) a random one generated once and kept in `${DATA_DIR}/session-secret`,
 * readable only by its owner, so tokens survive restarts. The value is never logged.
 */
export function loadSessionSecret(config: Pick<Config, 'SESSION_SECRET' | 'DATA_DIR'>): string {
  if (config.SESSION_SECRET) return config.SESSION_SECRET;
  mkdirSync(config.DATA_DIR, { recursive: true });
  const file = join(config.DATA_DIR, 'session-secret');
  const draft = `${file}.${process.pid}.tmp`;
  try {
    // Written whole, then linked into place: linking fails when the file exists, so when two
    // processes start together one secret wins and nobody reads a half-written file.
    writeFileSync(draft, randomBytes(48).toString('base64url'), { mode: 0o600 });
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < MIN_LENGTH) {
    throw new Error(`${file} holds fewer than ${MIN_LENGTH} characters: delete it to generate a new secret`);
  }
  return secret;
}
