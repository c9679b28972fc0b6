import 'reflect-metadata';
import { execFile, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { createDataSource } from '../entities/data-source';
import { config, ConfigError, EMBEDDED_DATABASE, type Config } from '../platform/config';
import { connectTemporalClient, ensureSearchAttributes, NO_PAYLOADS } from '../platform/temporal';
import { promoteVersion } from '../workers/versioning';
import { bundleIsCurrent } from '../workers/workflow-bundle-inputs';
import { DEFAULT_BUNDLE_PATH, readWorkflowBundle } from '../workers/workflow-code';
import { clusterLocation, startEmbeddedPostgres, type RunningPostgres } from './embedded-postgres';
import { copyNotice, reachableBinaries } from './postgres-binaries';
import { runMigrations } from './migrate';
import { assertPortsFree } from './port-holder';
import { localServiceEnvironment } from './service-environment';
import { ensureSpeechTools } from './speech-tools';
import { provisionTemporalCli } from './temporal-cli';
import { startTemporalDevServer, type RunningTemporal } from './temporal-dev-server';
import { exitWithin, spawnTethered } from './tethered-spawn';

/**
 * `npm start`: the whole service on one machine. Embedded PostgreSQL (unless DATABASE_URL) with
 * its migrations and, beside it, the Temporal dev server with its UI (unless TEMPORAL_ADDRESS) with
 * our search attributes, then the worker and the API as child processes; the worker's build is
 * made the deployment's current version, as an operator does after a deploy. Ctrl-C or SIGTERM
 * stops everything in reverse order; every child also stops by itself when this process dies
 * without stopping them (kill -9, OOM).
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
  const { child, tethered } = spawnTethered(process.execPath, ['--import', 'tsx', join(root, entry)], {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
    deathSignal: 'SIGTERM',
  });
  if (!tethered) say(`${name}: setpriv is missing, so it will outlive this process if this process is killed.`);
  child.once('exit', (code, signal) => {
    if (stopping) return;
    say(`${name} exited unexpectedly (${signal ?? `code ${code}`}); stopping everything.`);
    void shutdown(1);
  });
  running.children.push({ name, process: child });
  return child;
}

const since = (start: number) => `${((Date.now() - start) / 1000).toFixed(1)} s`;

/** Asks `child` to stop and waits up to `ms`, saying what it waits for; then kills it. */
async function stopChild(name: string, child: ChildProcess, ms: number): Promise<void> {
  const start = Date.now();
  child.kill('SIGTERM');
  if (await exitWithin(child, 3_000)) return say(`${name} stopped (${since(start)}).`);
  say(`Waiting for the ${name} to stop (up to ${Math.round(ms / 1000)} s)...`);
  if (await exitWithin(child, ms - 3_000)) return say(`${name} stopped (${since(start)}).`);
  child.kill('SIGKILL');
  say(`${name} did not stop in ${since(start)} and was killed.`);
}

async function shutdown(code: number): Promise<never> {
  if (stopping) return new Promise<never>(() => undefined);
  stopping = true;
  say('Stopping...');
  // The API first (no new work), then the worker (drains in-flight activities), then the servers.
  const grace = { api: 15_000, worker: (config().WORKER_SHUTDOWN_GRACE_SECONDS + 10) * 1000 };
  const stopOrder = ['api', 'worker'];
  const children = [...running.children].sort((a, b) => stopOrder.indexOf(a.name) - stopOrder.indexOf(b.name));
  for (const { name, process: child } of children) {
    await stopChild(name, child, name === 'worker' ? grace.worker : grace.api);
  }
  for (const [name, server] of [
    ['Temporal', running.temporal],
    ['PostgreSQL', running.postgres],
  ] as const) {
    if (!server) continue;
    const start = Date.now();
    await server.stop().then(
      () => say(`${name} stopped (${since(start)}).`),
      (e: unknown) => say(`${name} stop failed: ${String(e)}`),
    );
  }
  say('Stopped.');
  process.exit(code);
}

/**
 * The bundle the worker loads and its build id: the configured prebuilt one, else `workflows/`
 * bundled into DATA_DIR by the build's own script (in a child, so webpack's memory goes with it),
 * unless the bundle there was made from exactly the files webpack would read now.
 */
async function workflowBundle(cfg: Config): Promise<{ path: string; buildId: string }> {
  const prebuilt = cfg.WORKFLOW_BUNDLE_PATH ?? (cfg.NODE_ENV === 'production' ? DEFAULT_BUNDLE_PATH : undefined);
  const path = resolve(root, prebuilt ?? join(cfg.DATA_DIR, 'workflow-bundle.js'));
  if (!prebuilt && bundleIsCurrent(path)) {
    say('Workflow code unchanged since the last bundle: the worker loads it as it is.');
  } else if (!prebuilt) {
    const script = join(root, 'scripts', 'build-workflow-bundle.ts');
    const args = ['--import', 'tsx', script, '--out', path, '--record-inputs'];
    await promisify(execFile)(process.execPath, args, { cwd: root });
  }
  return { path, buildId: readWorkflowBundle(path).buildId };
}

/** PostgreSQL (the embedded server, unless DATABASE_URL) with every migration applied; its URL. */
async function databaseReady(cfg: Config): Promise<string> {
  let databaseUrl = cfg.DATABASE_URL;
  if (cfg.EMBEDDED_POSTGRES) {
    const cluster = clusterLocation(cfg.DATA_DIR, { chosen: cfg.DATA_DIR_CHOSEN });
    say(`Starting embedded PostgreSQL on port ${cfg.EMBEDDED_POSTGRES_PORT} (data in ${cluster.dir})`);
    if (cluster.relocated) {
      say(`  (the "postgres" user cannot enter ${cfg.DATA_DIR} as root, so its cluster lives there instead)`);
    }
    const binaries = await reachableBinaries();
    const notice = copyNotice(binaries);
    if (notice) say(notice);
    running.postgres = await startEmbeddedPostgres({
      dataDir: cluster.dir,
      binaries,
      port: cfg.EMBEDDED_POSTGRES_PORT,
      ...EMBEDDED_DATABASE,
      log: (line) => cfg.LOG_LEVEL === 'debug' && say(`postgres: ${line}`),
    });
    databaseUrl = running.postgres.url;
  }
  const dataSource = createDataSource({ url: databaseUrl, applicationName: 'switchboard-start' });
  await dataSource.initialize();
  try {
    const applied = await runMigrations(dataSource);
    if (applied.length > 0) say(`Applied migrations: ${applied.join(', ')}`);
  } finally {
    await dataSource.destroy();
  }
  return databaseUrl;
}

/** Temporal (the dev server with its UI, unless TEMPORAL_ADDRESS) with our search attributes; its address. */
async function temporalReady(cfg: Config): Promise<string> {
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
      // The UI runs in the operator's browser on this machine: it reaches the API's codec server on localhost.
      uiCodecEndpoint: `http://localhost:${cfg.PORT}/codec`,
      log: (line) => say(`temporal: ${line}`),
    });
    temporalAddress = running.temporal.address;
  }
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const added = await ensureSearchAttributes(connection, cfg.TEMPORAL_NAMESPACE);
    if (added.length > 0) say(`Registered search attributes: ${added.join(', ')}`);
  } finally {
    await connection.close();
  }
  return temporalAddress;
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

/** Makes the worker's build current once it polls (docs/workflow-versioning.md), as an operator would. */
async function promote(address: string, cfg: Config, buildId: string): Promise<void> {
  const client = await connectTemporalClient(address, cfg.TEMPORAL_NAMESPACE, NO_PAYLOADS);
  try {
    const deploymentName = cfg.TEMPORAL_DEPLOYMENT_NAME;
    const { previousBuildId } = await promoteVersion(client, { deploymentName, buildId });
    if (previousBuildId !== buildId) say(`Worker build ${buildId} is current (was ${previousBuildId ?? 'none'}).`);
  } finally {
    await client.connection.close();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const cfg = config();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(0));

  // A service left over from an earlier run must never answer for this one.
  await assertPortsFree([
    { port: cfg.PORT, use: 'the API', setting: 'PORT' },
    { port: cfg.WORKER_METRICS_PORT, use: "the worker's metrics", setting: 'WORKER_METRICS_PORT' },
    ...(cfg.EMBEDDED_POSTGRES
      ? [{ port: cfg.EMBEDDED_POSTGRES_PORT, use: 'PostgreSQL', setting: 'EMBEDDED_POSTGRES_PORT' }]
      : []),
    ...(cfg.EMBEDDED_TEMPORAL
      ? [
          { port: cfg.TEMPORAL_PORT, use: 'Temporal', setting: 'TEMPORAL_PORT' },
          { port: cfg.TEMPORAL_UI_PORT, use: 'the Temporal UI', setting: 'TEMPORAL_UI_PORT' },
        ]
      : []),
  ]);

  const bundle = workflowBundle(cfg);
  // Webpack runs while the servers start; its failure is thrown where the worker needs the bundle.
  bundle.catch(() => undefined);

  // The offline voice (espeak-ng, PocketSphinx) is installed once, like the Temporal CLI below.
  try {
    await ensureSpeechTools((line) => say(line));
  } catch (error) {
    say(`Offline voice unavailable: ${error instanceof Error ? error.message : String(error)}`);
    say('Calls still run; a simulator call with audio needs these engines or a speech provider key.');
  }

  // The two servers start side by side: neither needs the other.
  const [database, temporal] = await Promise.allSettled([databaseReady(cfg), temporalReady(cfg)]);
  if (database.status === 'rejected') throw database.reason;
  if (temporal.status === 'rejected') throw temporal.reason;
  const [databaseUrl, temporalAddress] = [database.value, temporal.value];

  const env = localServiceEnvironment(process.env, { databaseUrl, temporalAddress });
  // The API loads no workflow code: it starts while webpack may still be bundling for the worker.
  spawnService('api', 'api/main.ts', env);
  const { path: bundlePath, buildId } = await bundle;
  spawnService('worker', 'workers/main.ts', { ...env, WORKFLOW_BUNDLE_PATH: bundlePath });
  if (cfg.TEMPORAL_WORKER_VERSIONING) await promote(temporalAddress, cfg, buildId);

  const apiUrl = `http://localhost:${cfg.PORT}`;
  // The deep check passes once the API, Temporal, a worker and PostgreSQL all work together.
  await waitForApi(`${apiUrl}/api/v1/health/deep`, 60_000);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  say(`Ready in ${seconds} s.`);
  say(`  API:         ${apiUrl}/api/v1  (health: ${apiUrl}/api/v1/health)`);
  say(`  Docs:        ${apiUrl}/docs`);
  say(`  Metrics:     ${apiUrl}/metrics, worker ${`http://localhost:${cfg.WORKER_METRICS_PORT}/metrics`}`);
  if (cfg.EMBEDDED_TEMPORAL) {
    say(`  Temporal UI: http://localhost:${cfg.TEMPORAL_UI_PORT}  (payloads decrypted by ${apiUrl}/codec)`);
  }
  say('Press Ctrl-C to stop.');
}

main().catch(async (error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof Error ? error.message : error);
  if (!stopping) await shutdown(1);
});
