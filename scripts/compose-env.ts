import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { configSchema } from '../platform/config';
import { COMPOSE_FILE } from './compose-tools';

/**
 * The settings docker-compose.yml decides itself for the api, worker and migrate containers: where
 * the other services are, the ports its healthchecks and published ports name, the recordings
 * volume, the one proxy in front of the API. Every other setting of the schema is passed through from the shell, `.env` or the file
 * given to `docker compose --env-file` (empty when unset, which the config reads as unset).
 */
export const COMPOSE_OWNED_SETTINGS: Record<string, string> = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://${POSTGRES_USER:-temporal}:${POSTGRES_PASSWORD:-temporal}@postgresql:5432/switchboard',
  TEMPORAL_ADDRESS: 'temporal:7233',
  HOST: '0.0.0.0',
  PORT: "'8000'",
  WORKER_METRICS_PORT: "'9464'",
  RECORDINGS_DIR: '/var/lib/switchboard/recordings',
  // The API is reached through the proxy service only; another proxy in front of it makes 2.
  TRUST_PROXY: '${TRUST_PROXY:-1}',
  SESSION_SECRET: '${SESSION_SECRET:?set SESSION_SECRET (npm run secrets:init)}',
  SECRETS_KEY: '${SECRETS_KEY:?set SECRETS_KEY (npm run secrets:init)}',
  PAYLOAD_ENCRYPTION_KEYS: '${PAYLOAD_ENCRYPTION_KEYS:?set PAYLOAD_ENCRYPTION_KEYS (npm run secrets:init)}',
  // The Temporal UI below, as the operator's browser reaches it: the codec server answers its requests.
  TEMPORAL_UI_ORIGINS: '${TEMPORAL_UI_ORIGINS:-http://localhost:8233,http://127.0.0.1:8233}',
};

export const BEGIN_MARKER = '# >>> every setting of platform/config.ts, written by `npm run compose:env`';
export const END_MARKER = '  # <<< end of the generated settings';

/** The lines between the markers: `x-switchboard-env`, one line per setting of the schema in its order. */
export function composeEnvironmentLines(): string[] {
  const settings = Object.keys(configSchema.shape).map(
    (name) => `  ${name}: ${COMPOSE_OWNED_SETTINGS[name] ?? `\${${name}:-}`}`,
  );
  return ['x-switchboard-env: &switchboard-env', ...settings];
}

/** `text` (docker-compose.yml) with the generated block replaced by the schema's current one. */
export function withGeneratedEnvironment(text: string): string {
  const lines = text.split('\n');
  const begin = lines.indexOf(BEGIN_MARKER);
  const end = lines.indexOf(END_MARKER);
  if (begin < 0 || end < begin) {
    throw new Error(`${relative(process.cwd(), COMPOSE_FILE)} has no generated settings block (its markers)`);
  }
  return [...lines.slice(0, begin + 1), ...composeEnvironmentLines(), ...lines.slice(end)].join('\n');
}

if (require.main === module) {
  writeFileSync(COMPOSE_FILE, withGeneratedEnvironment(readFileSync(COMPOSE_FILE, 'utf8')));
  console.log(`wrote the settings of ${relative(process.cwd(), COMPOSE_FILE)}`);
}
