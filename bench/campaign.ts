import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { noopParentWorkflow } from './workflows/noop.workflow';
import {
  dataConverterFor,
  migrate,
  mib,
  postJson,
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
import { contactsCsv, doNotCallCsv } from './contacts';
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
 *
 * That campaign runs with the dial-time rules doing as little as they can: an empty do-not-call
 * list (the screening is not a setting: it always reads the list), no frequency caps, an unpaced
 * configuration. Then the same campaign again with them at work, after a worker restart and its own
 * warm-up: DNC_LISTED numbers on the list (none of them a contact, so every contact is still
 * dialed), the default caps (3 a day, 10 a week: every dial claimed under its advisory lock), and
 * the configuration paced at PACED_CALLS_PER_SECOND (every dial takes its turn; faster than the
 * campaign dials, so a wait is a collision, not a limit). The difference is the rules' cost.
 *
 * BENCH_PAYLOADS with several phases (`plain,encrypted,plain,encrypted`) measures instead the
 * payload codec's cost: the floor and the campaign per phase, on fresh API and worker processes
 * with Temporal's payloads encrypted or passed through (bench/without-payload-codec.ts).
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
const DNC_LISTED = Number(process.env.BENCH_DNC_LISTED ?? 10_000);
const PACED_CALLS_PER_SECOND = 1000;
/** The frequency caps' defaults (DIAL_CAP_PER_DAY, DIAL_CAP_PER_WEEK): the bench's helpers turn them off. */
const DEFAULT_CAPS = { DIAL_CAP_PER_DAY: '3', DIAL_CAP_PER_WEEK: '10' };
interface CampaignBody {
  id: number;
  state: string;
  processed_rows: number;
  failed_rows: number;
  executed_count: number;
  dnc_skipped: number;
  frequency_capped: number;
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

/** Puts `count` numbers that are no contact's on the organization's do-not-call list. */
async function listNumbers(base: string, org: Organization, count: number): Promise<void> {
  const res = await fetch(`${base}/api/v1/organizations/do-not-call/import`, {
    method: 'POST',
    headers: { 'X-API-Key': org.apiKey, 'Content-Type': 'text/csv' },
    body: doNotCallCsv(count),
  });
  if (!res.ok) throw new Error(`do-not-call import answered ${res.status}: ${await res.text()}`);
}

async function paceConfiguration(base: string, org: Organization, callsPerSecond: number): Promise<void> {
  const res = await fetch(`${base}/api/v1/organizations/telephony-configs/${org.configurationId}`, {
    method: 'PUT',
    headers: { 'X-API-Key': org.apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ calls_per_second: callsPerSecond }),
  });
  if (!res.ok) throw new Error(`telephony configuration update answered ${res.status}: ${await res.text()}`);
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');

interface PayloadPhase {
  payloads: PayloadMode;
  load: string;
  floorRate: number;
  callRate: number;
  contactCpuMs: Record<string, number>;
  floorChildCpuMs: Record<string, number>;
}

const perContactOf = (cpu: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(cpu).map(([name, ms]) => [name, ms / CONTACTS]));

/**
 * BENCH_PAYLOADS with several phases: per phase, fresh API and worker processes with Temporal's
 * payloads encrypted or passed through, a warm-up, the floor and the campaign; then the phases side
 * by side. The dial-time rules are not run in this mode.
 */
async function comparePayloads(
  phases: PayloadMode[],
  services: { database: Database; temporal: RunningTemporal; connection: Connection; pg: PgClient },
): Promise<void> {
  const { database, temporal, connection, pg } = services;
  const secretsKey = randomBytes(32).toString('hex');
  const results: PayloadPhase[] = [];
  let org: Organization | undefined;
  for (const [index, payloads] of phases.entries()) {
    let api: RunningApi | undefined;
    let worker: RunningWorker | undefined;
    try {
      api = await startApi(
        database.url,
        {
          TEMPORAL_ADDRESS: temporal.address,
          TEMPORAL_TASK_QUEUE: TASK_QUEUE,
          SECRETS_KEY: secretsKey,
          TELEPHONY_SIMULATOR: 'true',
        },
        [],
        payloads,
      );
      worker = await startWorker(
        {
          DATABASE_URL: database.url,
          TEMPORAL_ADDRESS: temporal.address,
          TEMPORAL_TASK_QUEUE: TASK_QUEUE,
          SECRETS_KEY: secretsKey,
          PUBLIC_BASE_URL: api.base,
        },
        payloads,
      );
      org ??= await setUpOrganization(api.base);
      const client = new Client({ connection, dataConverter: dataConverterFor(payloads) });
      const processes = {
        temporal: temporal.pid,
        postgres: findProcess('bin/postgres', `-p ${new URL(database.url).port}`),
        api: api.pid ?? null,
        worker: worker.pid,
      };
      await runFloor(client, WARMUP, `bench-floor-warmup-${index + 1}`);
      const warm = await runCampaign(api.base, org, WARMUP, () => undefined);
      const { rows: first } = await pg.query<{ id: string }>(
        'SELECT temporal_workflow_id AS id FROM campaign_attempts WHERE campaign_id = $1 ORDER BY id LIMIT 1',
        [warm.id],
      );
      const stored = await storedInputEncoding(connection, first[0]?.id ?? '');
      if (stored !== payloads) throw new Error(`the ${payloads} phase stored ${stored} payloads`);
      const loadAtStart = load();
      say(`phase ${index + 1}: payloads ${payloads} (stored as such), load average ${loadAtStart}`);
      const stopFloor = meter(processes, worker.pid, api.pid);
      const floorMs = await runFloor(client, CONTACTS, `bench-floor-measured-${index + 1}`);
      const floor = stopFloor();
      let stopCampaign: ReturnType<typeof meter> | undefined;
      const workerPid = worker.pid;
      const apiPid = api.pid;
      const campaign = await runCampaign(api.base, org, CONTACTS, () => {
        stopCampaign = meter(processes, workerPid, apiPid);
      });
      if (!stopCampaign) throw new Error('the campaign was never started');
      const measured = stopCampaign();
      const { rows: completed } = await pg.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM runs WHERE campaign_id = $1 AND gathered_context->>'call_status' = 'completed'`,
        [campaign.id],
      );
      const completedCalls = completed[0]?.count ?? 0;
      if (completedCalls !== CONTACTS) throw new Error(`${CONTACTS - completedCalls} contacts did not end completed`);
      const phase: PayloadPhase = {
        payloads,
        load: `${loadAtStart} → ${load()}`,
        floorRate: CONTACTS / (floorMs / 1000),
        callRate: CONTACTS / (campaign.wallMs / 1000),
        contactCpuMs: perContactOf(measured.cpu),
        floorChildCpuMs: perContactOf(floor.cpu),
      };
      say(
        `phase ${index + 1} (${payloads}): campaign ${phase.callRate.toFixed(1)} calls/s, floor ` +
          `${phase.floorRate.toFixed(1)} children/s; CPU per contact ${totalCpuMs(phase.contactCpuMs).toFixed(1)} ms, ` +
          `per floor child ${totalCpuMs(phase.floorChildCpuMs).toFixed(1)} ms; all ${CONTACTS} completed`,
      );
      results.push(phase);
    } finally {
      await api?.stop();
      await worker?.stop();
    }
  }
  const names = Object.keys(results[0]?.contactCpuMs ?? {});
  console.log(`payload phases (${CONTACTS} contacts each); CPU in ms per contact (${names.join(' / ')}, total):`);
  for (const [index, phase] of results.entries()) {
    const perContact = names.map((name) => (phase.contactCpuMs[name] ?? 0).toFixed(1)).join(' / ');
    const contact = totalCpuMs(phase.contactCpuMs);
    const child = totalCpuMs(phase.floorChildCpuMs);
    console.log(
      `  ${index + 1}. ${phase.payloads.padEnd(9)} load ${phase.load}; ${phase.callRate.toFixed(1)} calls/s, floor ` +
        `${phase.floorRate.toFixed(1)}/s (÷ ${(phase.callRate / phase.floorRate).toFixed(2)}); per contact ${perContact}, ` +
        `${contact.toFixed(1)}; per floor child ${child.toFixed(1)}; CPU ratio ${(contact / child).toFixed(2)}`,
    );
  }
  printPayloadMeans(results, [
    ['contact, all processes', (phase) => totalCpuMs(phase.contactCpuMs)],
    ['contact, API + worker', (phase) => (phase.contactCpuMs.api ?? 0) + (phase.contactCpuMs.worker ?? 0)],
    ['floor child, all processes', (phase) => totalCpuMs(phase.floorChildCpuMs)],
  ]);
}

async function main(): Promise<void> {
  const phases = payloadPhases();
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
    if (phases.length > 1) {
      connection = await Connection.connect({ address: temporal.address });
      pg = new PgClient({ connectionString: database.url });
      await pg.connect();
      say(`Temporal: ${temporal.mode}`);
      say(`a campaign of ${CONTACTS.toLocaleString('en')} contacts and its floor in each phase: ${phases.join(', ')}`);
      await comparePayloads(phases, { database, temporal, connection, pg });
      return;
    }
    const [payloads = 'encrypted'] = phases;
    // One key for both processes: telephony credentials at rest, and the simulator's webhook signatures.
    const secretsKey = randomBytes(32).toString('hex');
    // The API runs in production mode, where the simulator is off unless asked for.
    api = await startApi(
      database.url,
      {
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: TASK_QUEUE,
        SECRETS_KEY: secretsKey,
        TELEPHONY_SIMULATOR: 'true',
      },
      [],
      payloads,
    );
    const workerEnv = {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      SECRETS_KEY: secretsKey,
      // The simulator posts its status webhooks here, from the worker.
      PUBLIC_BASE_URL: api.base,
    };
    worker = await startWorker(workerEnv, payloads);
    const org = await setUpOrganization(api.base);
    connection = await Connection.connect({ address: temporal.address });
    const client = new Client({ connection, dataConverter: dataConverterFor(payloads) });
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

    const loadAtStart = load();
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
    const loadRulesOff = load();

    say(
      `rules on: ${DNC_LISTED.toLocaleString('en')} numbers on the do-not-call list, caps 3 a day and 10 a week, ` +
        `${PACED_CALLS_PER_SECOND} dials/s`,
    );
    await listNumbers(api.base, org, DNC_LISTED);
    await paceConfiguration(api.base, org, PACED_CALLS_PER_SECOND);
    await worker.stop();
    worker = await startWorker({ ...workerEnv, ...DEFAULT_CAPS }, payloads);
    await runCampaign(api.base, org, WARMUP, () => undefined);
    const rulesOnProcesses = { ...processes, worker: worker.pid };
    const rulesOnWorkerPid = worker.pid;
    let stopRulesOn: typeof stop | undefined;
    const rulesOn = await runCampaign(api.base, org, CONTACTS, () => {
      stopRulesOn = meter(rulesOnProcesses, rulesOnWorkerPid, apiPid);
    });
    if (!stopRulesOn) throw new Error('the rules-on campaign was never started');
    const rulesOnMeasured = stopRulesOn();
    const loadRulesOn = load();
    const { rows: rulesOnStatuses } = await pg.query<{ status: string | null; count: number }>(
      `SELECT gathered_context->>'call_status' AS status, count(*)::int AS count FROM runs
        WHERE campaign_id = $1 GROUP BY 1 ORDER BY 2 DESC`,
      [rulesOn.id],
    );
    const { rows: claims } = await pg.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM dial_claims WHERE dial_key LIKE $1`,
      [`campaign-${rulesOn.id}/%`],
    );
    const { rows: rulesOnAttempts } = await pg.query<{ id: string }>(
      'SELECT temporal_workflow_id AS id FROM campaign_attempts WHERE campaign_id = $1 ORDER BY id',
      [rulesOn.id],
    );
    const rulesOnChild = await meanChildHistory(
      client,
      rulesOnAttempts.map((row) => row.id),
    );
    const rulesOnParent = await chainHistory(client, `campaign-${rulesOn.id}`);

    const perContact = (ms: number) => (ms / CONTACTS).toFixed(2).padStart(8);
    const difference = (off: number, on: number) =>
      `${((on - off) / CONTACTS >= 0 ? '+' : '') + ((on - off) / CONTACTS).toFixed(2)}`.padStart(9);
    console.log(
      `dial rules off, then on (${CONTACTS} contacts each; load average ${loadAtStart} → ${loadRulesOff} → ${loadRulesOn}):`,
    );
    console.log(
      `  rules on: call_status ${rulesOnStatuses.map((row) => `${row.status} ${row.count}`).join(', ')}; ` +
        `dnc_skipped ${rulesOn.body.dnc_skipped}, frequency_capped ${rulesOn.body.frequency_capped}; cap claims ${claims[0]?.count ?? 0}`,
    );
    console.log(`  ${''.padEnd(34)}      off       on  on − off`);
    console.log(
      `  ${'wall per contact (ms)'.padEnd(34)}${perContact(campaign.wallMs)} ${perContact(rulesOn.wallMs)} ${difference(campaign.wallMs, rulesOn.wallMs)}`,
    );
    let rulesTotals = [0, 0];
    for (const name of Object.keys(measured.cpu)) {
      const off = measured.cpu[name] ?? 0;
      const on = rulesOnMeasured.cpu[name] ?? 0;
      rulesTotals = [(rulesTotals[0] ?? 0) + off, (rulesTotals[1] ?? 0) + on];
      console.log(
        `  ${`CPU per contact, ${name}`.padEnd(34)}${perContact(off)} ${perContact(on)} ${difference(off, on)}`,
      );
    }
    const [offTotal = 0, onTotal = 0] = rulesTotals;
    console.log(
      `  ${'CPU per contact, total'.padEnd(34)}${perContact(offTotal)} ${perContact(onTotal)} ${difference(offTotal, onTotal)}`,
    );
    console.log(
      `  ${'history events / contact'.padEnd(34)}  parent ${(parent.events / CONTACTS).toFixed(2)} → ${(rulesOnParent.events / CONTACTS).toFixed(2)}, ` +
        `child ${child.toFixed(1)} → ${rulesOnChild.toFixed(1)}`,
    );
    const rulesOnCompleted = rulesOnStatuses.find((row) => row.status === 'completed')?.count ?? 0;
    if (rulesOnCompleted !== CONTACTS) {
      throw new Error(`${CONTACTS - rulesOnCompleted} contacts did not end completed with the rules on`);
    }
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
