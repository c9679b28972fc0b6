import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { TERMINAL_STATUS_LIST } from '../telephony/provider';
import { noopWorkflow } from './workflows/noop.workflow';
import {
  dataConverterFor,
  migrate,
  mib,
  say,
  seconds,
  setUpOrganization,
  startApi,
  startDatabase,
  type Database,
  payloadPhases,
  storedInputEncoding,
  type Organization,
  printPayloadMeans,
  totalCpuMs,
  type PayloadMode,
  type RunningApi,
} from './helpers';
import { cpuMeter, findProcess } from './process-cpu';
import {
  sampleMemory,
  startTemporal,
  startWorker,
  temporalMode,
  persistencePerUnit,
  temporalPersistence,
  type RunningTemporal,
  type RunningWorker,
} from './temporal-worker';

/**
 * `npm run bench:calls`: simulator calls placed through `POST /api/v1/public/agent/{trigger_path}`
 * until CALLS are placed, by CONCURRENCY clients, then waited for until every run is terminal in
 * PostgreSQL. Each call is the whole chain: the API creates the run and starts `call-<runId>`, the
 * worker dials the simulator (`ring_seconds` = `talk_seconds` = 0), the simulator's signed status
 * webhooks reach the API and are signalled to the workflow, the conversation engine runs (offline
 * policy), and `finalizeRun` writes the outcome.
 *
 * Services: PostgreSQL (DATABASE_URL, else embedded), Temporal (TEMPORAL_ADDRESS, else the CLI dev
 * server in memory; `--temporal=sqlite` or `--temporal=cluster` for the others, see temporal-worker.ts),
 * the API and the worker each from their real entry point as
 * their own process. Baseline of the same run, on the same worker and task queue: bare Temporal
 * workflows (`noopWorkflow`, start + result) at the same concurrency.
 *
 * BENCH_PAYLOADS lists phases (`plain,encrypted,plain,encrypted`): each starts the API and the
 * worker afresh with Temporal's payloads encrypted, as always in production, or passed through
 * (bench/without-payload-codec.ts), checks a stored history says so, and measures both workloads;
 * the run ends with the phases side by side, the codec's cost measured on one database and server.
 */

const CALLS = Number(process.env.BENCH_CALLS ?? 5_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const WARMUP = Math.min(200, CALLS);
/** Bounded: a run that never ends fails the bench instead of hanging it. */
const COMPLETION_TIMEOUT_MS = 10 * 60_000;
/** How long PostgreSQL backends take to report their transaction counts once idle. */
const STATS_SETTLE_MS = 2_000;
const TASK_QUEUE = 'switchboard';
const TARGET_CALLS_PER_SECOND = 100;
const TARGET_SHARE_OF_BARE = 0.5;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `task(0..count-1)` with `concurrency` lanes, each starting its next task when one ends. */
async function drive(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}

/** Any number but the simulator's magic suffixes (0486, 0408, 0600, 0503): every call is answered. */
const numberFor = (index: number) => `+1415555${String(1000 + (index % 9000))}`;

/** Places `count` calls, each with its own Idempotency-Key; returns the run ids and each request's latency. */
async function placeCalls(base: string, org: Organization, count: number, label: string) {
  const runIds: number[] = [];
  const latencies: number[] = [];
  const url = `${base}/api/v1/public/agent/${org.triggerPath}`;
  await drive(count, CONCURRENCY, async (index) => {
    const started = performance.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'X-API-Key': org.apiKey,
        'Idempotency-Key': `${label}-${index}`,
      },
      body: JSON.stringify({ phone_number: numberFor(index), initial_context: { first_name: 'Ada' } }),
    });
    const body = (await res.json()) as { workflow_run_id?: number; detail?: string };
    latencies.push(performance.now() - started);
    if (!res.ok || body.workflow_run_id === undefined) {
      throw new Error(`call ${index} answered ${res.status}: ${JSON.stringify(body)}`);
    }
    runIds.push(body.workflow_run_id);
  });
  return { runIds, latencies };
}

/** Polls PostgreSQL until every run is completed; returns when (performance.now()) the last one was seen done. */
async function waitForCompletion(sql: PgClient, runIds: number[]): Promise<number> {
  const deadline = Date.now() + COMPLETION_TIMEOUT_MS;
  for (;;) {
    const { rows } = await sql.query<{ done: number }>(
      'SELECT count(*)::int AS done FROM runs WHERE id = ANY($1::int[]) AND is_completed',
      [runIds],
    );
    const done = rows[0]?.done ?? 0;
    if (done === runIds.length) return performance.now();
    if (Date.now() > deadline) {
      throw new Error(
        `${runIds.length - done} of ${runIds.length} runs not completed after ${seconds(COMPLETION_TIMEOUT_MS)}`,
      );
    }
    await sleep(100);
  }
}

/**
 * Transactions PostgreSQL has committed or rolled back in the database: every statement sent
 * outside a transaction is one. Backends report their counts within about a second of going idle.
 */
async function databaseTransactions(sql: PgClient): Promise<number> {
  const { rows } = await sql.query<{ count: string }>(
    `SELECT xact_commit + xact_rollback AS count FROM pg_stat_database WHERE datname = current_database()`,
  );
  return Number(rows[0]?.count ?? 0);
}

/** Bare workflows: `noopWorkflow` started and its result awaited, `count` times at CONCURRENCY. */
async function runNoops(client: Client, count: number, label: string): Promise<void> {
  await drive(count, CONCURRENCY, async (index) => {
    await client.workflow.execute(noopWorkflow, { taskQueue: TASK_QUEUE, workflowId: `bench-noop-${label}-${index}` });
  });
}

interface Services {
  database: Database;
  temporal: RunningTemporal;
  connection: Connection;
  pg: PgClient;
  secretsKey: string;
}

/** What one phase measured, for the summary of a run of several. */
interface PhaseSummary {
  payloads: PayloadMode;
  stored: PayloadMode;
  load: string;
  callRate: number;
  bareRate: number;
  callCpuMs: Record<string, number>;
  bareCpuMs: Record<string, number>;
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');

/**
 * One phase on fresh API and worker processes in `payloads` mode (the database and Temporal are
 * the run's): a warm-up, then the bare workflows and the calls, printed as they are measured.
 */
async function runPhase(
  services: Services,
  payloads: PayloadMode,
  phase: number,
  organization: Organization | undefined,
): Promise<{ summary: PhaseSummary; org: Organization }> {
  const { database, temporal, pg, secretsKey } = services;
  let api: RunningApi | undefined;
  let worker: RunningWorker | undefined;
  try {
    // The API runs in production mode, where the simulator is off unless asked for.
    api = await startApi(
      database.url,
      { TEMPORAL_ADDRESS: temporal.address, SECRETS_KEY: secretsKey, TELEPHONY_SIMULATOR: 'true' },
      [],
      payloads,
    );
    worker = await startWorker(
      {
        DATABASE_URL: database.url,
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: TASK_QUEUE,
        SECRETS_KEY: secretsKey,
        // The simulator posts its status webhooks here, from the worker.
        PUBLIC_BASE_URL: api.base,
      },
      payloads,
    );
    const org = organization ?? (await setUpOrganization(api.base));
    const client = new Client({ connection: services.connection, dataConverter: dataConverterFor(payloads) });
    const label = `phase${phase}`;
    const processes = {
      temporal: temporal.pid,
      postgres: findProcess('bin/postgres', `-p ${new URL(database.url).port}`),
      api: api.pid ?? null,
      worker: worker.pid,
    };

    // Warm-up: webpack'd workflow code loaded, connections pooled, JIT warm.
    await runNoops(client, WARMUP, `${label}-warmup`);
    const warm = await placeCalls(api.base, org, WARMUP, `${label}-warmup`);
    await waitForCompletion(pg, warm.runIds);
    const stored = await storedInputEncoding(services.connection, `call-${warm.runIds[0]}`);
    if (stored !== payloads) throw new Error(`the ${payloads} phase stored ${stored} payloads`);

    const loadAtStart = load();
    say(`phase ${phase}: payloads ${payloads} (stored as such), load average ${loadAtStart}`);
    await sleep(STATS_SETTLE_MS);
    const bareTemporalBefore = await temporalPersistence(pg, temporal);
    let memory = sampleMemory(worker.pid);
    let cpu = cpuMeter(processes);
    let started = performance.now();
    await runNoops(client, CALLS, `${label}-measured`);
    const bareMs = performance.now() - started;
    const bareRss = memory.stop();
    const bareCpu = cpu.stop();
    const bareRate = CALLS / (bareMs / 1000);
    say(`bare no-op workflows: ${bareRate.toFixed(0)}/s (${seconds(bareMs)})`);

    await sleep(STATS_SETTLE_MS);
    const bareTemporal = persistencePerUnit(bareTemporalBefore, await temporalPersistence(pg, temporal), CALLS);
    const transactionsBefore = await databaseTransactions(pg);
    const callsTemporalBefore = await temporalPersistence(pg, temporal);
    memory = sampleMemory(worker.pid);
    cpu = cpuMeter(processes);
    started = performance.now();
    const { runIds, latencies } = await placeCalls(api.base, org, CALLS, `${label}-measured`);
    const placedMs = performance.now() - started;
    say(`${CALLS} calls placed in ${seconds(placedMs)}; waiting for every run to end`);
    const completedMs = (await waitForCompletion(pg, runIds)) - started;
    const callsRss = memory.stop();
    const callsCpu = cpu.stop();
    const callRate = CALLS / (completedMs / 1000);
    const loadAtEnd = load();
    await sleep(STATS_SETTLE_MS);
    const transactionsPerCall = ((await databaseTransactions(pg)) - transactionsBefore) / CALLS;
    const callsTemporal = persistencePerUnit(callsTemporalBefore, await temporalPersistence(pg, temporal), CALLS);

    const { rows: statuses } = await pg.query<{ status: string | null; count: number }>(
      `SELECT gathered_context->>'call_status' AS status, count(*)::int AS count FROM runs
        WHERE id = ANY($1::int[]) GROUP BY 1 ORDER BY 2 DESC`,
      [runIds],
    );
    const { rows: dials } = await pg.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM simulator_calls WHERE idempotency_key = ANY($1::text[])`,
      [runIds.map((id) => `call-${id}:1`)],
    );
    const terminal = new Set<string>(TERMINAL_STATUS_LIST);
    const nonTerminal = statuses.filter((row) => !terminal.has(row.status ?? '')).reduce((n, row) => n + row.count, 0);

    console.log(`calls (${CALLS}, ${CONCURRENCY} clients, ring 0 s, talk 0 s), payloads ${payloads}:`);
    console.log(`  placed:                   ${(CALLS / (placedMs / 1000)).toFixed(0)} calls/s (${seconds(placedMs)})`);
    console.log(`  completed end to end:     ${callRate.toFixed(0)} calls/s (${seconds(completedMs)})`);
    console.log(
      `  API latency:              p50 ${percentile(latencies, 50).toFixed(1)} ms   p99 ${percentile(latencies, 99).toFixed(1)} ms`,
    );
    console.log(`  worker peak RSS:          ${mib(callsRss)}`);
    console.log(`  call_status:              ${statuses.map((row) => `${row.status} ${row.count}`).join(', ')}`);
    console.log(`  simulator dials:          ${dials[0]?.count ?? 0} (one per call)`);
    console.log(
      `  PostgreSQL transactions:  ${transactionsPerCall.toFixed(1)} a call (all processes; the bench's polling too)`,
    );
    if (temporal.databases.length > 0) {
      console.log(
        `  Temporal's PostgreSQL:    ${callsTemporal.transactions.toFixed(1)} transactions, ` +
          `${callsTemporal.writes.toFixed(1)} rows written a call (bare workflow: ` +
          `${bareTemporal.transactions.toFixed(1)}, ${bareTemporal.writes.toFixed(1)})`,
      );
    }
    console.log(`bare no-op workflows (${CALLS}, ${CONCURRENCY} concurrent, start + result):`);
    console.log(`  completed:                ${bareRate.toFixed(0)} workflows/s (${seconds(bareMs)})`);
    console.log(`  worker peak RSS:          ${mib(bareRss)}`);
    console.log(`calls ÷ bare: ${(callRate / bareRate).toFixed(2)}`);
    console.log(`CPU per call / per bare workflow (ms), by process (load average ${loadAtStart} → ${loadAtEnd}):`);
    for (const name of Object.keys(callsCpu)) {
      const perCall = (callsCpu[name] ?? 0) / CALLS;
      const perBare = (bareCpu[name] ?? 0) / CALLS;
      console.log(`  ${name.padEnd(16)} ${perCall.toFixed(2).padStart(7)}   ${perBare.toFixed(2).padStart(7)}`);
    }
    if (nonTerminal > 0) throw new Error(`${nonTerminal} runs completed without a terminal call_status`);
    const met = callRate >= TARGET_CALLS_PER_SECOND && callRate >= TARGET_SHARE_OF_BARE * bareRate;
    console.log(
      `target ≥ ${TARGET_CALLS_PER_SECOND} calls/s and ≥ ${TARGET_SHARE_OF_BARE} × bare: ${met ? 'met' : 'NOT met'}`,
    );
    return {
      org,
      summary: {
        payloads,
        stored,
        load: `${loadAtStart} → ${loadAtEnd}`,
        callRate,
        bareRate,
        callCpuMs: perUnit(callsCpu),
        bareCpuMs: perUnit(bareCpu),
      },
    };
  } finally {
    await api?.stop();
    await worker?.stop();
  }
}

const perUnit = (cpu: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(cpu).map(([name, ms]) => [name, ms / CALLS]));

/** Several phases: one row each, CPU per call and per bare workflow by process, and the ratio of the totals. */
function printPhases(phases: PhaseSummary[]): void {
  const names = Object.keys(phases[0]?.callCpuMs ?? {});
  console.log(`payload phases (${CALLS} calls each); CPU in ms per call (${names.join(' / ')}, total):`);
  for (const [index, phase] of phases.entries()) {
    const perCall = names.map((name) => (phase.callCpuMs[name] ?? 0).toFixed(1)).join(' / ');
    console.log(
      `  ${index + 1}. ${phase.payloads.padEnd(9)} load ${phase.load}; ${phase.callRate.toFixed(0)} calls/s, ` +
        `${phase.bareRate.toFixed(0)} bare/s; per call ${perCall}, ${totalCpuMs(phase.callCpuMs).toFixed(1)}; ` +
        `per bare workflow ${totalCpuMs(phase.bareCpuMs).toFixed(1)}; ratio ${(totalCpuMs(phase.callCpuMs) / totalCpuMs(phase.bareCpuMs)).toFixed(2)}`,
    );
  }
  printPayloadMeans(phases, [
    ['call, all processes', (phase) => totalCpuMs(phase.callCpuMs)],
    ['call, API + worker', (phase) => (phase.callCpuMs.api ?? 0) + (phase.callCpuMs.worker ?? 0)],
    ['bare workflow, all processes', (phase) => totalCpuMs(phase.bareCpuMs)],
  ]);
}

async function main(): Promise<void> {
  const phases = payloadPhases();
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-calls-'));
  chmodSync(dir, 0o755);
  let database: Database | undefined;
  let temporal: RunningTemporal | undefined;
  let connection: Connection | undefined;
  let pg: PgClient | undefined;
  try {
    database = await startDatabase();
    await migrate(database.url);
    temporal = await startTemporal(dir, temporalMode(), database.url);
    connection = await Connection.connect({ address: temporal.address });
    pg = new PgClient({ connectionString: database.url });
    await pg.connect();
    // One key for both processes: telephony credentials at rest, and the simulator's webhook signatures.
    const services: Services = { database, temporal, connection, pg, secretsKey: randomBytes(32).toString('hex') };
    say(`Temporal: ${temporal.mode}`);
    say(
      `${CALLS.toLocaleString('en')} calls and as many no-op workflows, ${CONCURRENCY} concurrent, ` +
        `in ${phases.length} phase(s): ${phases.join(', ')} payloads`,
    );
    const summaries: PhaseSummary[] = [];
    let org: Organization | undefined;
    for (const [index, payloads] of phases.entries()) {
      const phase = await runPhase(services, payloads, index + 1, org);
      org = phase.org;
      summaries.push(phase.summary);
    }
    if (summaries.length > 1) printPhases(summaries);
  } finally {
    await pg?.end().catch(() => undefined);
    await connection?.close();
    await temporal?.stop();
    await database?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
