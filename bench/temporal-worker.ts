import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Client as PgClient } from 'pg';
import { parseConfig } from '../platform/config';
import { FAILURE_CONVERTER_PATH } from '../platform/payload-codec';
import { connectTemporalClient, ensureSearchAttributes } from '../platform/temporal';
import { freePort } from '../scripts/free-port';
import { provisionTemporalCli } from '../scripts/temporal-cli';
import { DEFAULT_TEMPORAL_DATABASES, freeTemporalPorts, startTemporalServer } from '../scripts/temporal-cluster';
import { startTemporalDevServer } from '../scripts/temporal-dev-server';
import { promoteVersion } from '../workers/versioning';
import { readWorkflowBundle } from '../workers/workflow-code';
import { BENCH_PAYLOAD_ENCRYPTION_KEYS, benchDataConverter, entryArgs, HOST, say, type PayloadMode } from './helpers';
import { findProcess } from './process-cpu';

/** Temporal and a worker process for the benchmarks that run workflows (see bench/calls.ts). */

export interface RunningTemporal {
  address: string;
  /** Which server this is, for the report. */
  mode: string;
  /** The server's process, for CPU accounting; null when it runs elsewhere. */
  pid: number | null;
  /** Temporal's own databases on the bench's PostgreSQL (the cluster's server); none for the others. */
  databases: string[];
  stop(): Promise<void>;
}

const TEMPORAL_MODES = ['memory', 'sqlite', 'cluster'] as const;
export type TemporalMode = (typeof TEMPORAL_MODES)[number];

/** `--temporal=memory|sqlite|cluster` on the bench's command line (`npm run bench:calls -- --temporal=cluster`). */
export function temporalMode(): TemporalMode {
  const { values } = parseArgs({ options: { temporal: { type: 'string', default: 'memory' } } });
  return temporalModeOf(values.temporal);
}

/** The `--temporal` value of a bench that parses its own flags. */
export function temporalModeOf(value: string): TemporalMode {
  const mode = TEMPORAL_MODES.find((known) => known === value);
  if (!mode) throw new Error(`--temporal must be one of ${TEMPORAL_MODES.join(', ')}, not ${value}`);
  return mode;
}

/**
 * TEMPORAL_ADDRESS when set; else, by `mode`: `temporal server start-dev` from the provisioned CLI in
 * memory as the test suite runs it (`memory`), with its SQLite file in `dir` as `npm start` runs it
 * (`sqlite`), or the official server on the bench's PostgreSQL started by the same code as
 * `npm run start:cluster` (`cluster`). Our search attributes are registered in every case.
 */
export async function startTemporal(dir: string, mode: TemporalMode, databaseUrl: string): Promise<RunningTemporal> {
  let running: Omit<RunningTemporal, 'mode'>;
  let description: string;
  const executable = await provisionTemporalCli(say);
  const devServerPid = (address: string) => findProcess('start-dev', `--port ${address.split(':').pop()}`);
  if (process.env.TEMPORAL_ADDRESS) {
    running = { address: process.env.TEMPORAL_ADDRESS, pid: null, databases: [], stop: () => Promise.resolve() };
    description = `TEMPORAL_ADDRESS ${process.env.TEMPORAL_ADDRESS}`;
  } else if (mode === 'cluster') {
    const server = await startTemporalServer({
      databaseUrl,
      ports: await freeTemporalPorts(),
      namespace: 'default',
      log: say,
      databases: DEFAULT_TEMPORAL_DATABASES,
    });
    running = {
      address: server.address,
      pid: server.process.pid ?? null,
      databases: [DEFAULT_TEMPORAL_DATABASES.main, DEFAULT_TEMPORAL_DATABASES.visibility],
      stop: () => server.stop(),
    };
    description = 'the official server on PostgreSQL (as npm run start:cluster)';
  } else if (mode === 'sqlite') {
    const server = await startTemporalDevServer({
      executable,
      dbFile: join(dir, 'temporal.sqlite'),
      port: await freePort(),
      uiPort: await freePort(),
      namespace: 'default',
    });
    running = { ...server, pid: devServerPid(server.address), databases: [] };
    description = 'dev server, SQLite file (as npm start)';
  } else {
    const env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: executable.type === 'existing-path' ? { type: 'existing-path', path: executable.path } : executable,
        // No UI and quiet logs: nothing but the server competes for the two cores.
        extraArgs: ['--log-level', 'error', '--headless'],
        ip: HOST,
        port: await freePort(),
      },
    });
    running = { address: env.address, pid: devServerPid(env.address), databases: [], stop: () => env.teardown() };
    description = 'dev server, in memory (as the tests)';
  }
  const connection = await Connection.connect({ address: running.address });
  try {
    await ensureSearchAttributes(connection, 'default');
  } finally {
    await connection.close();
  }
  return { ...running, mode: description };
}

export interface PersistenceReading {
  transactions: number;
  writes: number;
}

/** Transactions and rows written in Temporal's databases so far (zero for a server without them). */
export async function temporalPersistence(sql: PgClient, temporal: RunningTemporal): Promise<PersistenceReading> {
  const { rows } = await sql.query<{ transactions: string | null; writes: string | null }>(
    `SELECT sum(xact_commit + xact_rollback) AS transactions, sum(tup_inserted + tup_updated + tup_deleted) AS writes
       FROM pg_stat_database WHERE datname = ANY($1::text[])`,
    [temporal.databases],
  );
  return { transactions: Number(rows[0]?.transactions ?? 0), writes: Number(rows[0]?.writes ?? 0) };
}

export interface RunningWorker {
  pid: number;
  stop(): Promise<void>;
}

/** `BENCH_WORKER_CPU_PROFILE_DIR` set: the worker runs under `node --cpu-prof` into that directory. */
const profileArgs = (): string[] => {
  const dir = process.env.BENCH_WORKER_CPU_PROFILE_DIR;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
};

let bundle: Promise<string> | undefined;

/**
 * The benchmarks' workflow bundle (the production workflows and the no-op baselines), built once
 * per bench run into a temporary file removed at exit.
 */
function prebuiltBundle(): Promise<string> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: require.resolve(join(__dirname, 'workflows')),
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: new DefaultLogger('WARN'),
  }).then(({ code }) => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-bundle-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'workflow-bundle.js');
    writeFileSync(path, code);
    return path;
  });
  return bundle;
}

/**
 * The worker from its real entry point (workers/main.ts) as its own process, so its memory can be
 * measured alone. Resolves once it polls its task queue and its build is the deployment's current
 * version (promoted as an operator does); its logs are discarded after that (or written to the file
 * BENCH_WORKER_LOG names). It loads a prebuilt workflow bundle, as production workers do: bundling
 * at start leaves about 115 MiB of webpack's memory resident for the life of the process.
 * `payloads` 'plain' runs it without the payload codec (the codec's baseline).
 */
export async function startWorker(env: NodeJS.ProcessEnv, payloads: PayloadMode = 'encrypted'): Promise<RunningWorker> {
  const bundlePath = env.WORKFLOW_BUNDLE_PATH ?? (await prebuiltBundle());
  const worker: ChildProcess = spawn(
    process.execPath,
    [...profileArgs(), '--import', 'tsx', ...entryArgs(join(__dirname, '..', 'workers', 'main.ts'), payloads)],
    {
      env: {
        ...process.env,
        HOST,
        LOG_LEVEL: 'info',
        WORKER_METRICS_PORT: String(await freePort()),
        TELEPHONY_SIMULATOR: 'true',
        PAYLOAD_ENCRYPTION_KEYS: BENCH_PAYLOAD_ENCRYPTION_KEYS,
        DIAL_CAP_PER_DAY: '0',
        DIAL_CAP_PER_WEEK: '0',
        WORKFLOW_BUNDLE_PATH: bundlePath,
        // Node options of the worker alone (a heap limit), not of the API or the bench.
        ...(process.env.BENCH_WORKER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_WORKER_NODE_OPTIONS } : {}),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const stop = async () => {
    if (worker.exitCode !== null) return;
    worker.kill('SIGTERM');
    await once(worker, 'exit');
  };
  const stdout = worker.stdout;
  if (!stdout || worker.pid === undefined) throw new Error('the worker did not start');
  const pid = worker.pid;
  stdout.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the worker did not start within 300 s')), 300_000);
    const onExit = (code: number | null) => reject(new Error(`the worker exited with code ${code}`));
    worker.once('exit', onExit);
    const onData = (chunk: string) => {
      if (!chunk.includes('"msg":"worker running"')) return;
      clearTimeout(timer);
      worker.off('exit', onExit);
      stdout.off('data', onData);
      // Keep reading so a full pipe never blocks the worker: into BENCH_WORKER_LOG when set, else nowhere.
      if (process.env.BENCH_WORKER_LOG) stdout.pipe(createWriteStream(process.env.BENCH_WORKER_LOG));
      else stdout.resume();
      resolve();
    };
    stdout.on('data', onData);
  })
    .then(() => promoteWorkerBuild({ ...process.env, ...env }, bundlePath))
    .catch(async (error: unknown) => {
      await stop();
      throw error;
    });
  return { pid, stop };
}

/** Makes the worker's build current, unless it runs unversioned (TEMPORAL_WORKER_VERSIONING=false). */
async function promoteWorkerBuild(env: NodeJS.ProcessEnv, bundlePath: string): Promise<void> {
  const cfg = parseConfig(env);
  if (!cfg.TEMPORAL_WORKER_VERSIONING) return;
  const client = await connectTemporalClient(cfg.TEMPORAL_ADDRESS, cfg.TEMPORAL_NAMESPACE, benchDataConverter);
  try {
    const { buildId } = readWorkflowBundle(bundlePath);
    await promoteVersion(client, { deploymentName: cfg.TEMPORAL_DEPLOYMENT_NAME, buildId });
  } finally {
    await client.connection.close();
  }
}

/** Resident set size of a process, in bytes (Linux `/proc`); null once it is gone. */
export function residentBytes(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Samples a process's RSS on an interval and keeps the peak. */
export function sampleMemory(pid: number, everyMs = 100) {
  let peak = residentBytes(pid) ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, residentBytes(pid) ?? 0);
  }, everyMs);
  return {
    get peakBytes() {
      return peak;
    },
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

/** The change between two readings, per unit of work (a call, a contact, a child). */
export const persistencePerUnit = (
  before: PersistenceReading,
  after: PersistenceReading,
  units: number,
): PersistenceReading => ({
  transactions: (after.transactions - before.transactions) / units,
  writes: (after.writes - before.writes) / units,
});
