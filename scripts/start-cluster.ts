import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { config, ConfigError, EMBEDDED_DATABASE, type Config } from '../platform/config';
import { connectTemporalClient, NO_PAYLOADS } from '../platform/temporal';
import { promoteVersion } from '../workers/versioning';
import { DEFAULT_BUNDLE_PATH, readWorkflowBundle } from '../workers/workflow-code';
import { clusterLocation, startEmbeddedPostgres, type RunningPostgres } from './embedded-postgres';
import { copyNotice, reachableBinaries } from './postgres-binaries';
import { assertPortsFree } from './port-holder';
import { clusterServiceEnvironment } from './service-environment';
import { startTemporalServer, temporalPortsFrom } from './temporal-cluster';
import { exitWithin, spawnTethered } from './tethered-spawn';

/**
 * `npm run start:cluster`: the production topology on one machine. PostgreSQL (embedded, or
 * DATABASE_URL), the official Temporal server on it from deploy/temporal/config.yaml, the namespace
 * and search attributes by compose's own script, then `npm run build` and N workers and M API
 * processes in NODE_ENV=production from dist/ (built while the servers start), and the build made the worker
 * deployment's current version as an operator does after a deploy. Each API process has a port of its own
 * (PORT, PORT+1, …) as each replica has behind a load balancer; see docs/operations/scaling.md.
 * Ctrl-C or SIGTERM stops everything in reverse order; every child also dies with this process.
 */

const say = (line: string) => console.log(`[cluster] ${line}`);
const root = join(__dirname, '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const since = (start: number) => `${((Date.now() - start) / 1000).toFixed(1)} s`;

const { values: flags } = parseArgs({
  options: {
    workers: { type: 'string', default: process.env.CLUSTER_WORKERS ?? '2' },
    apis: { type: 'string', default: process.env.CLUSTER_APIS ?? '2' },
    /** Run the dist/ already built (a restart, or a checkout whose build was just made). */
    'skip-build': { type: 'boolean', default: false },
  },
});

function count(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 16) throw new Error(`--${name} must be a whole number from 1 to 16`);
  return n;
}

interface Service {
  name: string;
  process: ChildProcess;
  graceMs: number;
}

const services: Service[] = [];
const servers: { name: string; stop(): Promise<void> }[] = [];
let stopping = false;

async function shutdown(code: number): Promise<never> {
  if (stopping) return new Promise<never>(() => undefined);
  stopping = true;
  say('Stopping...');
  // npm forwards the signal to the build it runs.
  for (const step of steps) step.kill('SIGTERM');
  // APIs first (no new work), then workers (they drain in-flight activities), then the servers.
  for (const { name, process: child, graceMs } of [...services].reverse()) {
    const start = Date.now();
    child.kill('SIGTERM');
    if (await exitWithin(child, graceMs)) say(`${name} stopped (${since(start)}).`);
    else {
      child.kill('SIGKILL');
      say(`${name} did not stop in ${since(start)} and was killed.`);
    }
  }
  for (const server of [...servers].reverse()) {
    const start = Date.now();
    await server.stop().then(
      () => say(`${server.name} stopped (${since(start)}).`),
      (e: unknown) => say(`${server.name} stop failed: ${String(e)}`),
    );
  }
  say('Stopped.');
  process.exit(code);
}

function spawnService(name: string, entry: string, env: NodeJS.ProcessEnv, graceMs: number): void {
  const { child } = spawnTethered(process.execPath, [join(root, entry)], {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
    deathSignal: 'SIGTERM',
  });
  child.once('exit', (code, signal) => {
    if (stopping) return;
    say(`${name} exited unexpectedly (${signal ?? `code ${code}`}); stopping everything.`);
    void shutdown(1);
  });
  services.push({ name, process: child, graceMs });
}

/** Commands running to completion (the build, the migrations): stopped first by a shutdown. */
const steps = new Set<ChildProcess>();

/** Runs a command to completion, each output line shown after `label`; rejects when it fails. */
function run(label: string, command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    steps.add(child);
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        for (const line of chunk.split('\n')) if (line.trim()) say(`${label}: ${line.trimEnd()}`);
      });
    }
    child.on('error', reject);
    child.on('exit', (code) => {
      steps.delete(child);
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} failed`));
    });
  });
}

/** `npm run build`, started while PostgreSQL and Temporal come up: the two mostly wait on each other. */
function buildDist(): Promise<void> {
  if (flags['skip-build']) {
    say('Running the dist/ already built (--skip-build)');
    return Promise.resolve();
  }
  say('Building dist/ (npm run build) while the servers start');
  const buildStart = Date.now();
  const build = run('build', 'npm', ['run', '--silent', 'build'], process.env).then(() =>
    say(`Built in ${since(buildStart)}.`),
  );
  // A failed build stops everything at once rather than after Temporal is up.
  build.catch((error: unknown) => {
    if (stopping) return;
    console.error(error instanceof Error ? error.message : error);
    void shutdown(1);
  });
  return build;
}

async function waitForHealth(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await sleep(250);
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs / 1000} s`);
}

async function startTemporal(databaseUrl: string, cfg: Config): Promise<string> {
  const server = await startTemporalServer({
    databaseUrl,
    ports: temporalPortsFrom(cfg.TEMPORAL_PORT),
    namespace: cfg.TEMPORAL_NAMESPACE,
    numHistoryShards: cfg.NUM_HISTORY_SHARDS,
    log: say,
  });
  server.process.once('exit', (code, signal) => {
    if (stopping) return;
    say(`The Temporal server exited unexpectedly (${signal ?? `code ${code}`}); stopping everything.`);
    void shutdown(1);
  });
  servers.push({ name: 'Temporal', stop: () => server.stop() });
  return server.address;
}

async function main(): Promise<void> {
  const started = Date.now();
  const cfg = config();
  const workers = count('workers', flags.workers);
  const apis = count('apis', flags.apis);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(0));
  const apiPorts = Array.from({ length: apis }, (_, i) => cfg.PORT + i);
  const metricsPorts = Array.from({ length: workers }, (_, i) => cfg.WORKER_METRICS_PORT + i);
  const temporalPorts = temporalPortsFrom(cfg.TEMPORAL_PORT);

  await assertPortsFree([
    ...apiPorts.map((port, i) => ({ port, use: `API ${i + 1}`, setting: 'PORT' })),
    ...metricsPorts.map((port, i) => ({ port, use: `worker ${i + 1}'s metrics`, setting: 'WORKER_METRICS_PORT' })),
    ...(cfg.EMBEDDED_POSTGRES
      ? [{ port: cfg.EMBEDDED_POSTGRES_PORT, use: 'PostgreSQL', setting: 'EMBEDDED_POSTGRES_PORT' }]
      : []),
    ...(cfg.EMBEDDED_TEMPORAL
      ? (Object.entries(temporalPorts) as [string, number][]).map(([service, port]) => ({
          port,
          use: `Temporal (${service})`,
          setting: 'TEMPORAL_PORT',
        }))
      : []),
  ]);

  const build = buildDist();
  // The cluster keeps its own state beside `npm start`'s, so the two never share a database.
  const dataDir = join(cfg.DATA_DIR, 'cluster');
  let databaseUrl = cfg.DATABASE_URL;
  if (cfg.EMBEDDED_POSTGRES) {
    const cluster = clusterLocation(dataDir, { chosen: cfg.DATA_DIR_CHOSEN });
    say(`Starting embedded PostgreSQL on port ${cfg.EMBEDDED_POSTGRES_PORT} (data in ${cluster.dir})`);
    const binaries = await reachableBinaries();
    const notice = copyNotice(binaries);
    if (notice) say(notice);
    const postgres: RunningPostgres = await startEmbeddedPostgres({
      dataDir: cluster.dir,
      binaries,
      port: cfg.EMBEDDED_POSTGRES_PORT,
      ...EMBEDDED_DATABASE,
    });
    servers.push({ name: 'PostgreSQL', stop: () => postgres.stop() });
    databaseUrl = postgres.url;
  }

  const temporalAddress = cfg.EMBEDDED_TEMPORAL ? await startTemporal(databaseUrl, cfg) : cfg.TEMPORAL_ADDRESS;

  await build;
  const env = clusterServiceEnvironment(process.env, {
    databaseUrl,
    temporalAddress,
    dataDir,
    firstApiPort: cfg.PORT,
  });
  await run('migrate', process.execPath, [join(root, 'dist', 'scripts', 'migrate.js')], env);

  const workerGraceMs = (cfg.WORKER_SHUTDOWN_GRACE_SECONDS + 10) * 1000;
  metricsPorts.forEach((port, i) =>
    spawnService(
      `worker ${i + 1}`,
      'dist/workers/main.js',
      { ...env, WORKER_METRICS_PORT: String(port) },
      workerGraceMs,
    ),
  );
  apiPorts.forEach((port, i) =>
    spawnService(`API ${i + 1}`, 'dist/api/main.js', { ...env, PORT: String(port) }, 15_000),
  );
  if (cfg.TEMPORAL_WORKER_VERSIONING) {
    const { buildId } = readWorkflowBundle(resolve(root, cfg.WORKFLOW_BUNDLE_PATH ?? DEFAULT_BUNDLE_PATH));
    const client = await connectTemporalClient(temporalAddress, cfg.TEMPORAL_NAMESPACE, NO_PAYLOADS);
    try {
      const deploymentName = cfg.TEMPORAL_DEPLOYMENT_NAME;
      const { previousBuildId } = await promoteVersion(client, { deploymentName, buildId }, { timeoutMs: 120_000 });
      if (previousBuildId !== buildId) say(`Worker build ${buildId} is current (was ${previousBuildId ?? 'none'}).`);
    } finally {
      await client.connection.close();
    }
  }

  // The deep check passes once an API, Temporal, a worker and PostgreSQL all work together.
  await Promise.all(apiPorts.map((port) => waitForHealth(`http://localhost:${port}/api/v1/health/deep`, 120_000)));
  say(`Ready in ${since(started)}: ${workers} workers, ${apis} API processes, Temporal at ${temporalAddress}.`);
  apiPorts.forEach((port, i) => say(`  API ${i + 1}: http://localhost:${port}/api/v1`));
  say(`  Public address (webhooks, media streams): ${env.PUBLIC_BASE_URL}`);
  say(`  Codec server (temporal CLI --codec-endpoint): http://localhost:${apiPorts[0]}/codec`);
  say('Press Ctrl-C to stop.');
}

main().catch(async (error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof Error ? error.message : error);
  if (!stopping) await shutdown(1);
});
