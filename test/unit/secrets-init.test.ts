import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseConfig } from '../../platform/config';
import { COMPOSE_FILE, ensureDockerCompose } from '../../scripts/compose-tools';
import { createSecretsFile } from '../../scripts/secrets-init';

/** `npm run secrets:init`: production secrets written once, in a file every way of running reads. */
const root = join(__dirname, '..', '..');
let scratch: string;
beforeEach(() => {
  scratch = mkdtempSync(join(tmpdir(), 'switchboard-secrets-'));
});
afterEach(() => rmSync(scratch, { recursive: true, force: true }));

/** The KEY=value lines of an env file. */
const entries = (file: string): Record<string, string> =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

it('writes secrets production accepts, readable by the owner only', () => {
  const file = join(scratch, '.env.production');
  expect(createSecretsFile(file)).toBe(true);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const secrets = entries(file);
  expect(Object.keys(secrets).sort()).toEqual([
    'OPERATOR_TOKEN',
    'PAYLOAD_ENCRYPTION_KEYS',
    'SECRETS_KEY',
    'SESSION_SECRET',
  ]);
  const config = parseConfig({
    ...secrets,
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://db/x',
    TEMPORAL_ADDRESS: 't:1',
  });
  expect(config.SECRETS_KEY).toBe(secrets.SECRETS_KEY);
  // Production refuses to start without a payload key; the one written parses as the current key.
  expect(config.PAYLOAD_ENCRYPTION_KEYS).toBeDefined();
  // Two runs never share a secret.
  const other = join(scratch, 'other.env');
  createSecretsFile(other);
  expect(entries(other).SECRETS_KEY).not.toBe(secrets.SECRETS_KEY);
});

it('never replaces an existing file, from the command line either', () => {
  const file = join(scratch, 'secrets.env');
  const run = () =>
    spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'secrets-init.ts'), file], {
      cwd: root,
      encoding: 'utf8',
    });
  expect(run().status).toBe(0);
  const first = readFileSync(file, 'utf8');
  const again = run();
  expect(again.status).toBe(1);
  expect(again.stderr).toMatch(/exists and was left as it is/);
  expect(readFileSync(file, 'utf8')).toBe(first);
  expect(createSecretsFile(file)).toBe(false);
  expect(readFileSync(file, 'utf8')).toBe(first);
});

it('is read by node --env-file as it is', () => {
  const file = join(scratch, '.env.production');
  createSecretsFile(file);
  const printed = spawnSync(
    process.execPath,
    [`--env-file=${file}`, '-e', 'console.log(JSON.stringify([process.env.SECRETS_KEY, process.env.OPERATOR_TOKEN]))'],
    { encoding: 'utf8', env: { PATH: process.env.PATH } },
  );
  expect(JSON.parse(printed.stdout)).toEqual([entries(file).SECRETS_KEY, entries(file).OPERATOR_TOKEN]);
});

it('is read by docker compose --env-file, which passes it and any setting added to it to every service', async () => {
  const dockerCompose = await ensureDockerCompose();
  const file = join(scratch, '.env.production');
  createSecretsFile(file);
  appendFileSync(file, 'LLM_API_KEY=sk-from-the-file\nENABLE_SIGNUP=false\nNUM_HISTORY_SHARDS=512\n');
  const result = spawnSync(dockerCompose, ['--env-file', file, '--file', COMPOSE_FILE, 'config'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    timeout: 60_000,
  });
  expect(result.stderr).toBe('');
  const resolved = parse(result.stdout) as { services: Record<string, { environment: Record<string, string> }> };
  for (const service of ['api', 'worker', 'migrate']) {
    expect(resolved.services[service]?.environment).toMatchObject({
      SECRETS_KEY: entries(file).SECRETS_KEY,
      SESSION_SECRET: entries(file).SESSION_SECRET,
      OPERATOR_TOKEN: entries(file).OPERATOR_TOKEN,
      LLM_API_KEY: 'sk-from-the-file',
      ENABLE_SIGNUP: 'false',
      LLM_MODEL: '',
    });
  }
  expect(resolved.services.temporal?.environment.NUM_HISTORY_SHARDS).toBe('512');
}, 300_000);
