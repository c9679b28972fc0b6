import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { SecretsCanary1795000004700 } from '../../entities/migrations/1795000004700-SecretsCanary';
import { freePort } from '../../scripts/free-port';
import { Secrets } from '../../telephony/secrets';
import { SecretsKeyMismatchError, verifySecretsKey } from '../../telephony/secrets-canary';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

/** A start whose SECRETS_KEY cannot open what the database stores is refused, saying why. */
const root = join(__dirname, '..', '..');
const newKey = () => randomBytes(32).toString('hex');
const secretsOf = (key: string) => new Secrets(Buffer.from(key, 'hex'));

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});
beforeEach(async () => {
  await db.dataSource.query('DELETE FROM secrets_canary');
  await db.dataSource.query('DELETE FROM organizations');
});

const canary = async () =>
  (
    await db.dataSource.query<{ sealed: string; created_at: Date }[]>('SELECT sealed, created_at FROM secrets_canary')
  )[0];

it('the first start seals the canary, later starts with the same key open it', async () => {
  const key = newKey();
  expect(await verifySecretsKey(db.dataSource, secretsOf(key), 'SECRETS_KEY')).toBe('sealed');
  const stored = await canary();
  expect(await verifySecretsKey(db.dataSource, secretsOf(key), 'SECRETS_KEY')).toBe('verified');
  expect(await canary()).toEqual(stored);
});

it('first starts at once agree on one canary', async () => {
  const key = newKey();
  const outcomes = await Promise.all(
    Array.from({ length: 4 }, () => verifySecretsKey(db.dataSource, secretsOf(key), 'SECRETS_KEY')),
  );
  expect(outcomes.filter((outcome) => outcome === 'sealed')).toHaveLength(1);
  expect(outcomes.filter((outcome) => outcome === 'verified')).toHaveLength(3);
});

it('refuses another key, naming where it came from and when the canary was sealed, and changes nothing', async () => {
  await verifySecretsKey(db.dataSource, secretsOf(newKey()), 'SECRETS_KEY');
  const stored = await canary();
  const refusal = verifySecretsKey(db.dataSource, secretsOf(newKey()), '.data/secrets-key');
  await expect(refusal).rejects.toThrow(SecretsKeyMismatchError);
  await expect(refusal).rejects.toThrow(
    `.data/secrets-key cannot decrypt what this database stores: the check value its first start stored (${stored?.created_at.toISOString()}) was sealed with another key`,
  );
  expect(await canary()).toEqual(stored);
});

it('a database upgraded from before the canary is checked against what it stores', async () => {
  const key = newKey();
  const [org] = await db.dataSource.query<{ id: number }[]>(
    `INSERT INTO organizations (name) VALUES ('o') RETURNING id`,
  );
  await db.dataSource.query('INSERT INTO organization_webhook_secrets (organization_id, secret) VALUES ($1, $2)', [
    org?.id,
    secretsOf(key).seal('whsec'),
  ]);
  await expect(verifySecretsKey(db.dataSource, secretsOf(newKey()), 'SECRETS_KEY')).rejects.toThrow(
    'its stored credentials were sealed with another key',
  );
  expect(await canary()).toBeUndefined();
  expect(await verifySecretsKey(db.dataSource, secretsOf(key), 'SECRETS_KEY')).toBe('sealed');
});

/** Runs `entry` to its exit with the database and `key`; its exit code and what it wrote to stderr. */
async function start(entry: string, key: string): Promise<{ code: number | null; stderr: string }> {
  const [port, metricsPort] = await Promise.all([freePort(), freePort()]);
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, entry)], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: db.url,
      // Never reached: the check comes first.
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      SECRETS_KEY: key,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      PORT: String(port),
      WORKER_METRICS_PORT: String(metricsPort),
      WORKER_NICE: '0',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

it('the API and the worker refuse to start with a key that cannot open the canary', async () => {
  await verifySecretsKey(db.dataSource, secretsOf(newKey()), 'SECRETS_KEY');
  const wrongKey = newKey();
  const [api, worker] = await Promise.all([start('api/main.ts', wrongKey), start('workers/main.ts', wrongKey)]);
  for (const refused of [api, worker]) {
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/SECRETS_KEY cannot decrypt what this database stores/);
  }
}, 60_000);

it('the migration is reversible', async () => {
  const runner = db.dataSource.createQueryRunner();
  try {
    await new SecretsCanary1795000004700().down(runner);
    await new SecretsCanary1795000004700().up(runner);
    expect(await canary()).toBeUndefined();
  } finally {
    await runner.release();
  }
});
