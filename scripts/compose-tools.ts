import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { aptInstall, isRoot } from './apt-packages';
import { onPath } from './executables';

/**
 * Debian bookworm's `docker-compose` (Compose 1.29.2, Python): its `config` loads a file as
 * `docker compose up` would (schema, types, interpolation, merges) with no container engine.
 */
export const COMPOSE_PACKAGE = 'docker-compose';

export const COMPOSE_FILE = join(__dirname, '..', 'docker-compose.yml');

/**
 * The variables docker-compose.yml requires (`${VAR:?message}`), with stand-in values: they are
 * checked for presence only.
 */
export const REQUIRED_COMPOSE_VARIABLES = {
  SESSION_SECRET: 'compose-check',
  SECRETS_KEY: 'compose-check',
  PAYLOAD_ENCRYPTION_KEYS: 'compose-check',
};

/** Finds `docker-compose`; installs the Debian package when missing (not root: `sudo -n`, never a prompt). */
export async function ensureDockerCompose(log: (line: string) => void = console.log): Promise<string> {
  const found = onPath('docker-compose');
  if (found) return found;
  log(`Installing ${COMPOSE_PACKAGE} (to validate docker-compose.yml) with apt-get...`);
  const code = await aptInstall([COMPOSE_PACKAGE], log);
  const installed = onPath('docker-compose');
  if (code === 0 && installed) return installed;
  throw new Error(
    `Could not install ${COMPOSE_PACKAGE}. Install the Debian package ` +
      `(apt-get install -y --no-install-recommends ${COMPOSE_PACKAGE})` +
      (isRoot() ? '.' : ' as root: `sudo -n` was refused.'),
  );
}

export interface ComposeVerdict {
  valid: boolean;
  /** What docker-compose said: empty for a valid file. */
  output: string;
}

/**
 * `docker-compose --file <file> config --quiet`, with the required variables set and no other of
 * the caller's environment (a `.env` beside the file is still read, as `docker compose` would).
 */
export function validateComposeFile(dockerCompose: string, file: string): ComposeVerdict {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...REQUIRED_COMPOSE_VARIABLES };
  const result = spawnSync(dockerCompose, ['--file', file, 'config', '--quiet'], {
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.error) throw result.error;
  return { valid: result.status === 0, output: `${result.stdout}${result.stderr}`.trim() };
}

if (require.main === module) {
  ensureDockerCompose()
    .then((dockerCompose) => {
      const verdict = validateComposeFile(dockerCompose, COMPOSE_FILE);
      if (!verdict.valid) throw new Error(`docker-compose.yml is invalid:\n${verdict.output}`);
      console.log(`docker-compose.yml is valid (${dockerCompose} config).`);
    })
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
