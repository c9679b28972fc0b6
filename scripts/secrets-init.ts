import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Where `npm run secrets:init` writes when given no path. */
export const DEFAULT_SECRETS_FILE = '.env.production';

/** Fresh production secrets, each in a form the config accepts. */
export function generateSecrets(
  now = new Date(),
): Record<'SESSION_SECRET' | 'SECRETS_KEY' | 'PAYLOAD_ENCRYPTION_KEYS' | 'OPERATOR_TOKEN', string> {
  return {
    SESSION_SECRET: randomBytes(48).toString('base64url'),
    SECRETS_KEY: randomBytes(32).toString('hex'),
    // The key's id names the month it was made, so a rotation's new key reads apart from it.
    PAYLOAD_ENCRYPTION_KEYS: `${now.toISOString().slice(0, 7)}:${randomBytes(32).toString('hex')}`,
    OPERATOR_TOKEN: randomBytes(32).toString('base64url'),
  };
}

/**
 * Writes fresh secrets to `file`, readable by its owner only, as KEY=value lines that
 * `docker compose --env-file`, `node --env-file` and systemd's EnvironmentFile all read. Never
 * replaces an existing file: its SECRETS_KEY is the one stored credentials are encrypted with.
 * Returns false, writing nothing, when the file exists.
 */
export function createSecretsFile(file: string, now = new Date()): boolean {
  const lines = [
    `# Switchboard production secrets, written by \`npm run secrets:init\` on ${now.toISOString()}.`,
    '# Keep this file, and a copy where your backups are: SECRETS_KEY decrypts the credentials stored in',
    '# PostgreSQL and PAYLOAD_ENCRYPTION_KEYS the workflow histories in Temporal, and no other keys can.',
    '# Other settings (docs/reference/configuration.md) may be added below.',
    ...Object.entries(generateSecrets(now)).map(([name, value]) => `${name}=${value}`),
    '',
  ];
  try {
    // `wx`: fails when the file exists, so two runs at once cannot both write it.
    writeFileSync(file, lines.join('\n'), { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

if (require.main === module) {
  const file = resolve(process.argv[2] ?? DEFAULT_SECRETS_FILE);
  if (createSecretsFile(file)) {
    console.log(`Wrote SESSION_SECRET, SECRETS_KEY, PAYLOAD_ENCRYPTION_KEYS and OPERATOR_TOKEN to ${file} (mode 600).`);
    console.log('Keep it, with a copy in your backups: stored credentials cannot be read without its SECRETS_KEY.');
  } else {
    console.error(`${file} exists and was left as it is: its SECRETS_KEY is the one your stored credentials need.`);
    console.error('To start afresh on an empty database, move it away first; to add settings, edit it.');
    process.exit(1);
  }
}
