import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { noopParentWorkflow } from '../workflows/noop.workflow';
import {
  migrate,
  mib,
  postJson,
  say,
  seconds,
  setUpOrganization,
  startApi,
  startDatabase,
  type Database,
  type Organization,
  type RunningApi,
} from './helpers';
import { contactsCsv } from './contacts';
import { chainHistory, CHILD_SAMPLE, formatKinds, historyKinds, meanChildHistory } from './histories';
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
 * `npm run bench:campaign`: one campaign of CONTACTS contacts through the real HTTP API (CSV upload,
 * create with `max_concurrency` CONCURRENCY and retries off, start, `GET /campaign/{id}` polled until
 * `completed`), every contact answered by the simulator with zero ring and talk time. Floor of the
 * same run, on the same worker and task queue: `noopParentWorkflow(CONTACTS, CONCURRENCY)`, a bare
 * sliding window of no-op children. Services are started as in bench/calls.ts.
 */

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 100);
const WARMUP = Math.min(200, CONTACTS);
/** Bounded: a campaign that never completes fails the bench instead of hanging it. */
const TIMEOUT_MS = Math.max(5 * 60_000, CONTACTS * 300);
const TASK_QUEUE = 'switchboard';
/** How long PostgreSQL backends take to report their counters once idle. */
const STATS_SETTLE_MS = 2_000;
const TARGET_SHARE_OF_FLOOR = 0.6;
interface CampaignBody {
  id: number;
  state: string;
  processed_rows: number;
  failed_rows: number;
  executed_count: number;
}

interface CampaignRun {
  id: number;
  /** First byte of the upload to its 201, and the create. */
  setupMs: number;
  /** From the start request to the poll that saw `completed`. */
  wallMs: number;
  body: CampaignBody;
}

/** Uploads, creates and starts a campaign, then polls it until it completes; `onStart` runs just before start. */
async function runCampaign(
  base: string,
  org: Organization,
  contacts: number,
  onStart: () => void,
): Promise<CampaignRun> {
  const headers = { 'X-API-Key': org.apiKey };
  const setupStarted = performance.now();
  const res = await fetch(`${base}/api/v1/campaign/sources?file_name=bench.csv`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'text/csv' },
    body: contactsCsv(contacts),
  });
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  const { source_id: sourceId } = (await res.json()) as { source_id: string };
  const { id } = await postJson<{ id: number }>(
    `${base}/api/v1/campaign/create`,
    {
      name: `Bench ${contacts}`,
      workflow_id: org.agentId,
      source_type: 'csv',
      source_id: sourceId,
      max_concurrency: CONCURRENCY,
      retry_config: { enabled: false },
    },
    headers,
  );
  const setupMs = performance.now() - setupStarted;
  onStart();
  const started = performance.now();
  await postJson(`${base}/api/v1/campaign/${id}/start`, {}, headers);
  for (;;) {
    const poll = await fetch(`${base}/api/v1/campaign/${id}`, { headers });
    const body = (await poll.json()) as CampaignBody;
    if (!poll.ok) throw new Error(`GET campaign ${id} answered ${poll.status}: ${JSON.stringify(body)}`);
    if (body.state === 'completed') return { id, setupMs, wallMs: performance.now() - started, body };
    if (body.state !== 'running') throw new Error(`campaign ${id} is ${body.state}`);
    if (performance.now() - started > TIMEOUT_MS) {
      throw new Error(`campaign ${id} not completed after ${seconds(TIMEOUT_MS)}: ${JSON.stringify(body)}`);
    }
    await sleep(250);
  }
}

/** The floor: a bare sliding window of `count` no-op children, CONCURRENCY at a time. Returns its wall time. */
async function runFloor(client: Client, count: number, workflowId: string): Promise<number> {
  const started = performance.now();
  await client.workflow.execute(noopParentWorkflow, {
    taskQueue: TASK_QUEUE,
    workflowId,
    args: [count, CONCURRENCY],
    workflowExecutionTimeout: TIMEOUT_MS,
  });
  return performance.now() - started;
}

/** CPU (by process) and peak RSS of the worker and the API over one phase. */
function meter(processes: Record<string, number | null>, workerPid: number, apiPid: number | undefined) {
  const cpu = cpuMeter(processes);
  const worker = sampleMemory(workerPid);
  const api = apiPid === undefined ? undefined : sampleMemory(apiPid);
  return () => ({ cpu: cpu.stop(), workerRss: worker.stop(), apiRss: api?.stop() ?? 0 });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-campaign-'));
  chmodSync(dir, 0o755);
  let database: Database | undefined;
  let temporal: RunningTemporal | undefined;
  let api: RunningApi | undefined;
  let worker: RunningWorker | undefined;
  let connection: Connection | undefined;
  let pg: PgClient | undefined;
  try {
    database = await startDatabase();
    await migrate(database.url);
    temporal = await startTemporal(dir, temporalMode(), database.url);
    // One key for both processes: telephony credentials at rest, and the simulator's webhook signatures.
    const secretsKey = randomBytes(32).toString('hex');
    // The API runs in production mode, where the simulator is off unless asked for.
    api = await startApi(database.url, {
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      SECRETS_KEY: secretsKey,
      TELEPHONY_SIMULATOR: 'true',
    });
    worker = await startWorker({
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      SECRETS_KEY: secretsKey,
      // The simulator posts its status webhooks here, from the worker.
      PUBLIC_BASE_URL: api.base,
    });
    const org = await setUpOrganization(api.base);
    connection = await Connection.connect({ address: temporal.address });
    const client = new Client({ connection });
    pg = new PgClient({ connectionString: database.url });
    await pg.connect();
    say(`Temporal: ${temporal.mode}`);
    say(`services up; a campaign of ${CONTACTS.toLocaleString('en')} contacts and its floor, ${CONCURRENCY} at a time`);
    const processes = {
      temporal: temporal.pid,
      postgres: findProcess('bin/postgres', `-p ${new URL(database.url).port}`),
      api: api.pid ?? null,
      worker: worker.pid,
    };

    // Warm-up: workflow code loaded, connections pooled, JIT warm.
    await runFloor(client, WARMUP, 'bench-floor-warmup');
    await runCampaign(api.base, org, WARMUP, () => undefined);

    const floorPersistenceBefore = await temporalPersistence(pg, temporal);
    const stop = meter(processes, worker.pid, api.pid);
    const floorId = 'bench-floor-measured';
    const floorMs = await runFloor(client, CONTACTS, floorId);
    const floor = stop();
    // Backends report their counters within about a second of going idle.
    await sleep(STATS_SETTLE_MS);
    const floorPersistence = persistencePerUnit(
      floorPersistenceBefore,
      await temporalPersistence(pg, temporal),
      CONTACTS,
    );
    const floorRate = CONTACTS / (floorMs / 1000);
    say(`floor: ${floorRate.toFixed(1)} children/s (${seconds(floorMs)})`);

    const floorPersistenceAfter = await temporalPersistence(pg, temporal);
    // Metered from the start request on: the upload is bench:import's subject, not this one's.
    let stopCampaign: typeof stop | undefined;
    const workerPid = worker.pid;
    const apiPid = api.pid;
    const campaign = await runCampaign(api.base, org, CONTACTS, () => {
      stopCampaign = meter(processes, workerPid, apiPid);
    });
    if (!stopCampaign) throw new Error('the campaign was never started');
    const measured = stopCampaign();
    await sleep(STATS_SETTLE_MS);
    const campaignPersistence = persistencePerUnit(
      floorPersistenceAfter,
      await temporalPersistence(pg, temporal),
      CONTACTS,
    );
    say(`campaign ${campaign.id} completed in ${seconds(campaign.wallMs)}; reading histories`);

    const { rows: statuses } = await pg.query<{ status: string | null; count: number }>(
      `SELECT gathered_context->>'call_status' AS status, count(*)::int AS count FROM runs
        WHERE campaign_id = $1 GROUP BY 1 ORDER BY 2 DESC`,
      [campaign.id],
    );
    const completedCalls = statuses.find((row) => row.status === 'completed')?.count ?? 0;
    const { rows: dials } = await pg.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM simulator_calls WHERE idempotency_key LIKE $1`,
      [`campaign-${campaign.id}/%`],
    );
    const { rows: attempts } = await pg.query<{ id: string }>(
      'SELECT temporal_workflow_id AS id FROM campaign_attempts WHERE campaign_id = $1 ORDER BY id',
      [campaign.id],
    );
    const parent = await chainHistory(client, `campaign-${campaign.id}`);
    const child = await meanChildHistory(
      client,
      attempts.map((row) => row.id),
    );
    const floorParent = await chainHistory(client, floorId);
    const floorChild = await meanChildHistory(
      client,
      Array.from({ length: CONTACTS }, (_, index) => `${floorId}-noop-${index}`),
    );

    const childKinds = await historyKinds(client, attempts[0]?.id ?? '');
    const floorChildKinds = await historyKinds(client, `${floorId}-noop-0`);

    const callRate = completedCalls / (campaign.wallMs / 1000);
    const ratio = callRate / floorRate;
    console.log(`campaign (${CONTACTS} contacts, max_concurrency ${CONCURRENCY}, retries off, ring 0 s, talk 0 s):`);
    console.log(`  upload + create:          ${seconds(campaign.setupMs)}`);
    console.log(`  start → completed:        ${seconds(campaign.wallMs)}`);
    console.log(`  completed calls/s:        ${callRate.toFixed(1)}`);
    console.log(`  call_status:              ${statuses.map((row) => `${row.status} ${row.count}`).join(', ')}`);
    console.log(
      `  counters:                 processed ${campaign.body.processed_rows}, failed ${campaign.body.failed_rows}, ` +
        `executed ${campaign.body.executed_count}; simulator dials ${dials[0]?.count ?? 0}`,
    );
    console.log(
      `  history events/contact:   parent ${(parent.events / CONTACTS).toFixed(2)} ` +
        `(${parent.events} in ${parent.runs} runs), child ${child.toFixed(1)} (mean of ${Math.min(CHILD_SAMPLE, attempts.length)})`,
    );
    console.log(`    parent, per contact:    ${formatKinds(parent.kinds, CONTACTS)}`);
    for (const [reason, count] of parent.taskFailures) console.log(`    parent task failed ×${count}: ${reason}`);
    console.log(`    first child:            ${formatKinds(childKinds, 1)}`);
    console.log(`  peak RSS:                 worker ${mib(measured.workerRss)}, API ${mib(measured.apiRss)}`);
    if (temporal.databases.length > 0) {
      console.log(
        `  Temporal's PostgreSQL:    ${campaignPersistence.transactions.toFixed(1)} transactions, ` +
          `${campaignPersistence.writes.toFixed(1)} rows written a contact (floor child: ` +
          `${floorPersistence.transactions.toFixed(1)}, ${floorPersistence.writes.toFixed(1)})`,
      );
    }
    console.log(`floor (noopParentWorkflow(${CONTACTS}, ${CONCURRENCY})):`);
    console.log(`  wall time:                ${seconds(floorMs)}`);
    console.log(`  children/s:               ${floorRate.toFixed(1)}`);
    console.log(
      `  history events/child:     parent ${(floorParent.events / CONTACTS).toFixed(2)} ` +
        `(${floorParent.events} in ${floorParent.runs} runs), child ${floorChild.toFixed(1)}`,
    );
    console.log(`    parent, per child:      ${formatKinds(floorParent.kinds, CONTACTS)}`);
    console.log(`    first child:            ${formatKinds(floorChildKinds, 1)}`);
    console.log(`  peak RSS:                 worker ${mib(floor.workerRss)}, API ${mib(floor.apiRss)}`);
    console.log(`campaign ÷ floor: ${ratio.toFixed(2)}`);
    console.log('CPU per contact / per floor child (ms), by process:');
    let totals = [0, 0];
    for (const name of Object.keys(measured.cpu)) {
      const perContact = (measured.cpu[name] ?? 0) / CONTACTS;
      const perChild = (floor.cpu[name] ?? 0) / CONTACTS;
      totals = [(totals[0] ?? 0) + perContact, (totals[1] ?? 0) + perChild];
      console.log(`  ${name.padEnd(16)} ${perContact.toFixed(2).padStart(7)}   ${perChild.toFixed(2).padStart(7)}`);
    }
    console.log(
      `  ${'total'.padEnd(16)} ${(totals[0] ?? 0).toFixed(2).padStart(7)}   ${(totals[1] ?? 0).toFixed(2).padStart(7)}`,
    );
    if (completedCalls !== CONTACTS) throw new Error(`${CONTACTS - completedCalls} contacts did not end completed`);
    console.log(`target ≥ ${TARGET_SHARE_OF_FLOOR} × floor: ${ratio >= TARGET_SHARE_OF_FLOOR ? 'met' : 'NOT met'}`);
  } finally {
    await pg?.end().catch(() => undefined);
    await connection?.close();
    await api?.stop();
    await worker?.stop();
    await temporal?.stop();
    await database?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
