import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const storedSecrets = z.object({ SESSION_SECRET: z.string().min(32), SECRETS_KEY: z.string().min(32) });
export type ClusterSecrets = z.infer<typeof storedSecrets>;

/**
 * The secrets production requires, for a local cluster: the environment's own when set, else
 * generated once into `${dir}/secrets.json` (owner-only) and kept, so that sessions and encrypted
 * telephony credentials survive restarts.
 */
export function clusterSecrets(dir: string, env: NodeJS.ProcessEnv = process.env): ClusterSecrets {
  const file = join(dir, 'secrets.json');
  let stored: ClusterSecrets;
  if (existsSync(file)) {
    stored = storedSecrets.parse(JSON.parse(readFileSync(file, 'utf8')));
  } else {
    stored = { SESSION_SECRET: randomBytes(48).toString('base64url'), SECRETS_KEY: randomBytes(32).toString('hex') };
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  }
  return {
    SESSION_SECRET: env.SESSION_SECRET || stored.SESSION_SECRET,
    SECRETS_KEY: env.SECRETS_KEY || stored.SECRETS_KEY,
  };
}
