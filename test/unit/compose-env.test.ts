import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { configSchema } from '../../platform/config';
import { COMPOSE_OWNED_SETTINGS, withGeneratedEnvironment } from '../../scripts/compose-env';
import { COMPOSE_FILE } from '../../scripts/compose-tools';
import { TEMPORAL_CONFIG_FILE } from '../../scripts/temporal-cluster';

/** Every setting of the schema reaches every container that runs Switchboard's code. */
interface Service {
  environment?: Record<string, string>;
  build?: string;
}
const text = readFileSync(COMPOSE_FILE, 'utf8');
const compose = parse(text, { merge: true }) as { services: Record<string, Service> };
const settings = Object.keys(configSchema.shape);
const environmentOf = (name: string): Record<string, string> => compose.services[name]?.environment ?? {};

it('holds the settings block `npm run compose:env` writes from the schema', () => {
  // Fails with what to do: a setting added to platform/config.ts and not to the compose file.
  if (withGeneratedEnvironment(text) !== text) {
    throw new Error('docker-compose.yml lacks settings of platform/config.ts: run `npm run compose:env` and commit it');
  }
});

it('passes every setting to each service built from the Dockerfile, unset ones as unset', () => {
  const built = Object.keys(compose.services).filter((name) => compose.services[name]?.build);
  expect(built.sort()).toEqual(['api', 'migrate', 'worker']);
  for (const name of built) {
    const environment = environmentOf(name);
    expect(settings.filter((setting) => !(setting in environment))).toEqual([]);
    for (const setting of settings.filter((s) => !(s in COMPOSE_OWNED_SETTINGS))) {
      expect(environment[setting]).toBe(`\${${setting}:-}`);
    }
  }
});

it('owns only settings of the schema, and requires the two secrets', () => {
  expect(Object.keys(COMPOSE_OWNED_SETTINGS).filter((setting) => !settings.includes(setting))).toEqual([]);
  for (const secret of ['SESSION_SECRET', 'SECRETS_KEY']) {
    expect(environmentOf('api')[secret]).toMatch(new RegExp(`^\\$\\{${secret}:\\?.*secrets:init`));
  }
});

it("gives NUM_HISTORY_SHARDS to the Temporal server, whose config defaults to the schema's default", () => {
  expect(environmentOf('temporal').NUM_HISTORY_SHARDS).toBe('${NUM_HISTORY_SHARDS:-}');
  const fallback = /numHistoryShards: \{\{ default "(\d+)" \(env "NUM_HISTORY_SHARDS"\) \}\}/.exec(
    readFileSync(TEMPORAL_CONFIG_FILE, 'utf8'),
  )?.[1];
  expect(Number(fallback)).toBe(configSchema.shape.NUM_HISTORY_SHARDS.parse(undefined));
});

it('creates the namespace the services use', () => {
  expect(environmentOf('temporal-create-namespace').DEFAULT_NAMESPACE).toBe('${TEMPORAL_NAMESPACE:-default}');
  expect(configSchema.shape.TEMPORAL_NAMESPACE.parse(undefined)).toBe('default');
});

it('mounts the recordings volume where RECORDINGS_DIR points', () => {
  const api = compose.services.api as Service & { volumes?: string[] };
  expect(api.volumes).toContain(`recordings:${COMPOSE_OWNED_SETTINGS.RECORDINGS_DIR}`);
  expect(readFileSync(join(COMPOSE_FILE, '..', 'Dockerfile'), 'utf8')).toContain(
    `ENV RECORDINGS_DIR=${COMPOSE_OWNED_SETTINGS.RECORDINGS_DIR}`,
  );
});
