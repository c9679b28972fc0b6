import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configSchema } from '../../platform/config';
import { clusterServiceEnvironment, localServiceEnvironment } from '../../scripts/service-environment';
import { temporalPortsFrom, temporalServerCommand } from '../../scripts/temporal-cluster';

/** Every setting of the schema, each set to a value of its own, as the caller's environment. */
const everySetting = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.keys(configSchema.shape).map((name) => [name, `value of ${name}`]));

/** The settings whose value in `child` is not the caller's. */
const changed = (parent: NodeJS.ProcessEnv, child: NodeJS.ProcessEnv): string[] =>
  Object.keys(configSchema.shape).filter((name) => child[name] !== parent[name]);

let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'switchboard-env-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

it('npm start passes every setting to the API and the worker, with the addresses of the servers it started', () => {
  const parent = everySetting();
  const child = localServiceEnvironment(parent, { databaseUrl: 'postgres://db', temporalAddress: 'temporal:1' });
  expect(changed(parent, child).sort()).toEqual(['DATABASE_URL', 'TEMPORAL_ADDRESS']);
  expect(child).toMatchObject({ DATABASE_URL: 'postgres://db', TEMPORAL_ADDRESS: 'temporal:1' });
});

it('npm run start:cluster passes every setting but those it decides, the secrets given included', () => {
  const parent = everySetting();
  const child = clusterServiceEnvironment(parent, {
    databaseUrl: 'postgres://db',
    temporalAddress: 'temporal:1',
    dataDir: scratch,
    firstApiPort: 8000,
  });
  expect(changed(parent, child).sort()).toEqual(['DATABASE_URL', 'DATA_DIR', 'NODE_ENV', 'TEMPORAL_ADDRESS']);
  expect(child).toMatchObject({ NODE_ENV: 'production', DATA_DIR: scratch });
});

it('npm run start:cluster keeps its generated secrets and the first API as public address when none are given', () => {
  const started = { databaseUrl: 'postgres://db', temporalAddress: 'temporal:1', dataDir: scratch, firstApiPort: 9100 };
  const first = clusterServiceEnvironment({}, started);
  expect(first.PUBLIC_BASE_URL).toBe('http://localhost:9100');
  expect(first.SECRETS_KEY).toMatch(/^[0-9a-f]{64}$/);
  expect(clusterServiceEnvironment({ PUBLIC_BASE_URL: '' }, started)).toMatchObject({
    SECRETS_KEY: first.SECRETS_KEY,
    SESSION_SECRET: first.SESSION_SECRET,
    PUBLIC_BASE_URL: 'http://localhost:9100',
  });
});

it("npm run start:cluster's Temporal server gets NUM_HISTORY_SHARDS", () => {
  const binaries = { server: 'temporal-server', sqlTool: 'temporal-sql-tool', schemaDir: '/schema', version: '1.30.1' };
  const postgres = { host: '127.0.0.1', port: 5432, user: 'u', password: 'p' };
  const { env } = temporalServerCommand(binaries, postgres, temporalPortsFrom(7233), { numHistoryShards: 512 });
  expect(env.NUM_HISTORY_SHARDS).toBe('512');
  expect(temporalServerCommand(binaries, postgres, temporalPortsFrom(7233)).env).not.toHaveProperty(
    'NUM_HISTORY_SHARDS',
  );
});
