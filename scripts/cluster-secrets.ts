import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

const storedSecrets = z.object({
  SESSION_SECRET: z.string().min(32),
  SECRETS_KEY: z.string().min(32),
  PAYLOAD_ENCRYPTION_KEYS: z.string().min(1),
});
export type ClusterSecrets = z.infer<typeof storedSecrets>;

const generated = (): ClusterSecrets => ({
  SESSION_SECRET: randomBytes(48).toString('base64url'),
  SECRETS_KEY: randomBytes(32).toString('hex'),
  PAYLOAD_ENCRYPTION_KEYS: `cluster-1:${randomBytes(32).toString('base64')}`,
});

/**
 * The secrets production requires, for a local cluster: the environment's own when set, else
 * generated once into `${dir}/secrets.json` (owner-only) and kept, so that sessions, encrypted
 * telephony credentials and encrypted workflow histories survive restarts. A file from before a
 * secret existed gets that secret added, the others kept.
 */
export function clusterSecrets(dir: string, env: NodeJS.ProcessEnv = process.env): ClusterSecrets {
  const file = join(dir, 'secrets.json');
  const existing = existsSync(file) ? storedSecrets.partial().parse(JSON.parse(readFileSync(file, 'utf8'))) : {};
  const stored = { ...generated(), ...existing };
  if (Object.keys(existing).length < Object.keys(stored).length) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  }
  return {
    SESSION_SECRET: env.SESSION_SECRET || stored.SESSION_SECRET,
    SECRETS_KEY: env.SECRETS_KEY || stored.SECRETS_KEY,
    PAYLOAD_ENCRYPTION_KEYS: env.PAYLOAD_ENCRYPTION_KEYS || stored.PAYLOAD_ENCRYPTION_KEYS,
  };
}
