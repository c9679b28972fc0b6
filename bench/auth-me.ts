import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { createDataSource } from '../entities/data-source';
import { startEmbeddedPostgres, type RunningPostgres } from '../scripts/embedded-postgres';
import { runMigrations } from '../scripts/migrate';
import { freePort } from '../scripts/free-port';

/**
 * `npx tsx bench/auth-me.ts`: requests per second and latency of `GET /api/v1/auth/me` with an API
 * key, against `GET /api/v1/health` (no auth, no database) as the baseline of the same run.
 *
 * The API runs as its own process from its real entry point (api/main.ts), on 127.0.0.1 only,
 * against PostgreSQL (DATABASE_URL, else an embedded one in a temporary directory). Temporal is
 * never reached by these routes, so its address is a closed port. Logs are discarded.
 */

const HOST = '127.0.0.1';
const CONNECTIONS = 10;
const WARMUP_SECONDS = 2;
const MEASURE_SECONDS = 10;
const TARGET_REQUESTS_PER_SECOND = 1_500;
const ADMIN = { email: 'bench@example.com', password: 'bench password' };

const say = (line: string) => console.log(`[bench] ${line}`);

interface Database {
  url: string;
  stop(): Promise<void>;
}

async function startDatabase(): Promise<Database> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: () => Promise.resolve() };
  // PostgreSQL runs as the `postgres` user when we are root: it must be able to enter the directory.
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  chmodSync(dir, 0o755);
  const postgres: RunningPostgres = await startEmbeddedPostgres({
    dataDir: join(dir, 'postgres'),
    port: await freePort(),
    user: 'bench',
    password: 'bench',
    database: 'bench',
  });
  return {
    url: postgres.url,
    async stop() {
      await postgres.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function migrate(url: string): Promise<void> {
  const dataSource = createDataSource({ url, applicationName: 'bench-migrate' });
  await dataSource.initialize();
  try {
    await runMigrations(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

function startApi(databaseUrl: string, port: number): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(__dirname, '..', 'api', 'main.ts')], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: `${HOST}:1`,
      SESSION_SECRET: randomBytes(32).toString('base64url'),
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitUntilUp(base: string, api: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (api.exitCode !== null) throw new Error(`the API exited with code ${api.exitCode}`);
    const ok = await fetch(`${base}/api/v1/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the API did not answer within 60 s');
}

async function postJson<T>(url: string, body: object, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** Logs in as the first-run admin (created by the API at start) and creates an API key. */
async function createApiKey(base: string): Promise<string> {
  const { token } = await postJson<{ token: string }>(`${base}/api/v1/auth/login`, ADMIN);
  const { api_key } = await postJson<{ api_key: string }>(
    `${base}/api/v1/user/api-keys`,
    { name: 'bench' },
    { Authorization: `Bearer ${token}` },
  );
  return api_key;
}

interface Measurement {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

async function measure(label: string, url: string, headers: Record<string, string> = {}): Promise<Measurement> {
  await autocannon({ url, connections: CONNECTIONS, duration: WARMUP_SECONDS, headers });
  const result = await autocannon({ url, connections: CONNECTIONS, duration: MEASURE_SECONDS, headers });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${label}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  }
  return { label, requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

const row = ({ label, requestsPerSecond, p50, p99 }: Measurement) =>
  `${label.padEnd(34)} ${requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${String(p50).padStart(3)} ms   p99 ${String(p99).padStart(3)} ms`;

async function main(): Promise<void> {
  const database = await startDatabase();
  let api: ChildProcess | undefined;
  try {
    await migrate(database.url);
    const port = await freePort();
    const base = `http://${HOST}:${port}`;
    api = startApi(database.url, port);
    await waitUntilUp(base, api);
    const apiKey = await createApiKey(base);
    say(`API up at ${base}; ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${MEASURE_SECONDS} s each`);

    const health = await measure('GET /api/v1/health (baseline)', `${base}/api/v1/health`);
    const me = await measure('GET /api/v1/auth/me (X-API-Key)', `${base}/api/v1/auth/me`, { 'X-API-Key': apiKey });

    console.log(row(health));
    console.log(row(me));
    console.log(`auth/me ÷ health: ${(me.requestsPerSecond / health.requestsPerSecond).toFixed(2)}`);
    const met = me.requestsPerSecond >= TARGET_REQUESTS_PER_SECOND;
    console.log(`target ≥ ${TARGET_REQUESTS_PER_SECOND} req/s for auth/me: ${met ? 'met' : 'NOT met'}`);
  } finally {
    if (api && api.exitCode === null) {
      api.kill('SIGTERM');
      await once(api, 'exit');
    }
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
