import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { createDataSource } from '../entities/data-source';
import { config, ConfigError, EMBEDDED_DATABASE } from '../platform/config';
import { ensureSearchAttributes } from '../platform/temporal';
import { startEmbeddedPostgres, type RunningPostgres } from './embedded-postgres';
import { runMigrations } from './migrate';
import { provisionTemporalCli } from './temporal-cli';
import { startTemporalDevServer, type RunningTemporal } from './temporal-dev-server';

/**
 * `npm start`: the whole service on one machine. Embedded PostgreSQL (unless DATABASE_URL), the
 * Temporal dev server with its UI (unless TEMPORAL_ADDRESS), search attributes, migrations, then
 * the worker and the API as child processes. Ctrl-C or SIGTERM stops everything in reverse order.
 */

const say = (line: string) => console.log(`[start] ${line}`);
const root = join(__dirname, '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Running {
  postgres?: RunningPostgres;
  temporal?: RunningTemporal;
  children: { name: string; process: ChildProcess }[];
}

const running: Running = { children: [] };
let stopping = false;

function spawnService(name: string, entry: string, env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, entry)], {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
    // Its own process group: Ctrl-C reaches only us, and we stop the services in order.
    detached: true,
  });
  child.once('exit', (code, signal) => {
    if (stopping) return;
    say(`${name} exited unexpectedly (${signal ?? `code ${code}`}); stopping everything.`);
    void shutdown(1);
  });
  running.children.push({ name, process: child });
  return child;
}

const exitOf = (child: ChildProcess, ms: number): Promise<void> =>
  new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done();
    }, ms);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
  });

async function shutdown(code: number): Promise<never> {
  if (stopping) return new Promise<never>(() => undefined);
  stopping = true;
  say('Stopping...');
  const grace = (config().WORKER_SHUTDOWN_GRACE_SECONDS + 15) * 1000;
  // The API first (no new work), then the worker (drains in-flight activities), then the servers.
  for (const { name, process: child } of [...running.children].reverse()) {
    child.kill('SIGTERM');
    await exitOf(child, grace);
    say(`${name} stopped.`);
  }
  await running.temporal?.stop().catch((e: unknown) => say(`Temporal stop failed: ${String(e)}`));
  await running.postgres?.stop().catch((e: unknown) => say(`PostgreSQL stop failed: ${String(e)}`));
  say('Stopped.');
  process.exit(code);
}

async function waitForApi(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`The API did not become ready at ${url} within ${timeoutMs / 1000} s`);
}

async function main(): Promise<void> {
  const started = Date.now();
  const cfg = config();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(0));

  let databaseUrl = cfg.DATABASE_URL;
  if (cfg.EMBEDDED_POSTGRES) {
    say(`Starting embedded PostgreSQL on port ${cfg.EMBEDDED_POSTGRES_PORT} (data in ${cfg.DATA_DIR}/postgres)`);
    running.postgres = await startEmbeddedPostgres({
      dataDir: join(cfg.DATA_DIR, 'postgres'),
      port: cfg.EMBEDDED_POSTGRES_PORT,
      ...EMBEDDED_DATABASE,
      log: (line) => cfg.LOG_LEVEL === 'debug' && say(`postgres: ${line}`),
    });
    databaseUrl = running.postgres.url;
  }

  let temporalAddress = cfg.TEMPORAL_ADDRESS;
  if (cfg.EMBEDDED_TEMPORAL) {
    const executable = await provisionTemporalCli(say);
    say(`Starting the Temporal dev server on port ${cfg.TEMPORAL_PORT} (CLI from ${executable.source})`);
    running.temporal = await startTemporalDevServer({
      executable,
      dbFile: join(cfg.DATA_DIR, 'temporal.sqlite'),
      port: cfg.TEMPORAL_PORT,
      uiPort: cfg.TEMPORAL_UI_PORT,
      namespace: cfg.TEMPORAL_NAMESPACE,
      log: (line) => say(`temporal: ${line}`),
    });
    temporalAddress = running.temporal.address;
  }

  const connection = await Connection.connect({ address: temporalAddress });
  const added = await ensureSearchAttributes(connection, cfg.TEMPORAL_NAMESPACE);
  await connection.close();
  if (added.length > 0) say(`Registered search attributes: ${added.join(', ')}`);

  const dataSource = createDataSource({ url: databaseUrl, applicationName: 'switchboard-start' });
  await dataSource.initialize();
  const applied = await runMigrations(dataSource);
  await dataSource.destroy();
  if (applied.length > 0) say(`Applied migrations: ${applied.join(', ')}`);

  const env = { ...process.env, DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporalAddress };
  spawnService('worker', 'workers/main.ts', env);
  spawnService('api', 'api/main.ts', env);

  const apiUrl = `http://localhost:${cfg.PORT}`;
  // The deep check passes once the API, Temporal, a worker and PostgreSQL all work together.
  await waitForApi(`${apiUrl}/api/v1/health/deep`, 60_000);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  say(`Ready in ${seconds} s.`);
  say(`  API:         ${apiUrl}/api/v1  (health: ${apiUrl}/api/v1/health)`);
  say(`  Docs:        ${apiUrl}/docs`);
  say(`  Metrics:     ${apiUrl}/metrics, worker ${`http://localhost:${cfg.WORKER_METRICS_PORT}/metrics`}`);
  if (cfg.EMBEDDED_TEMPORAL) say(`  Temporal UI: http://localhost:${cfg.TEMPORAL_UI_PORT}`);
  say('Press Ctrl-C to stop.');
}

main().catch(async (error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof Error ? error.message : error);
  if (!stopping) await shutdown(1);
});
