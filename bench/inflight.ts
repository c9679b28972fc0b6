import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { freePort } from '../scripts/free-port';
import { noopParentWorkflow } from './workflows/noop.workflow';
import { contactsCsv } from './contacts';
import { chainHistory } from './histories';
import {
  benchDataConverter,
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
import { machineCpuMeter } from './machine-cpu';
import { meanCpuPerSecond, samplePlateau, waitingCost, type Plateau, type PlateauProbe } from './plateau';
import { findProcess } from './process-cpu';
import {
  histogramBuckets,
  histogramQuantile,
  metricSum,
  parsePrometheus,
  summarize,
  type MetricSample,
} from './summary';
import {
  residentBytes,
  startTemporal,
  startWorker,
  temporalModeOf,
  type RunningTemporal,
  type RunningWorker,
} from './temporal-worker';

/**
 * `npm run bench:inflight`: many calls in flight at once on one worker, one API and the Temporal dev
 * server. CAMPAIGNS campaigns spread over ORGANIZATIONS organizations, each with `max_concurrency`
 * CONCURRENCY, dial simulator calls that ring RING s and talk TALK s, so about CAMPAIGNS × CONCURRENCY
 * calls wait at once; once that many are in flight the plateau is sampled for PLATEAU s while a
 * client polls the progress and runs reads; then ten campaigns are paused one after another, resumed,
 * and every campaign runs to its end and is checked. Baseline of the same run, first, on a worker of
 * its own: CAMPAIGNS no-op parents, each a sliding window of CONCURRENCY children that wait RING +
 * TALK s on one timer, sampled the same way. Flags (all optional):
 *
 *   npm run bench:inflight -- --campaigns 5 --concurrency 20 --talk-seconds 30 --plateau-seconds 60
 */

const { values: flags } = parseArgs({
  options: {
    campaigns: { type: 'string', default: '50' },
    temporal: { type: 'string', default: 'memory' },
    concurrency: { type: 'string', default: '100' },
    organizations: { type: 'string', default: '5' },
    'ring-seconds': { type: 'string', default: '5' },
    'talk-seconds': { type: 'string', default: '120' },
    'plateau-seconds': { type: 'string', default: '180' },
    /** Contacts of each campaign; default: enough to keep dialing through the ramp, the plateau and the pauses. */
    contacts: { type: 'string' },
    pauses: { type: 'string', default: '10' },
    'sample-seconds': { type: 'string', default: '10' },
    /**
     * Pause of the reading client between one progress-and-runs pair and the next; 0 (default): reads
     * back to back, so a faster machine reads more. A fixed pause keeps the read load equal between runs.
     */
    'read-pause-ms': { type: 'string', default: '0' },
  },
});

const positive = (name: keyof typeof flags): number => {
  const value = Number(flags[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number ≥ 1`);
  return value;
};

const CAMPAIGNS = positive('campaigns');
const CONCURRENCY = positive('concurrency');
const ORGANIZATIONS = Math.min(positive('organizations'), CAMPAIGNS);
const RING = positive('ring-seconds');
const TALK = positive('talk-seconds');
const PLATEAU = positive('plateau-seconds');
const PAUSES = Math.min(positive('pauses'), CAMPAIGNS);
const SAMPLE = positive('sample-seconds');
const READ_PAUSE_MS = Number(flags['read-pause-ms']);
if (!Number.isInteger(READ_PAUSE_MS) || READ_PAUSE_MS < 0)
  throw new Error('--read-pause-ms must be a whole number ≥ 0');
const TARGET = CAMPAIGNS * CONCURRENCY;
/** The dispatch rate assumed when sizing the contact lists (calls/s): about bench:campaign's on two cores. */
const ASSUMED_DIAL_RATE = 25;
const RAMP_ESTIMATE = TARGET / ASSUMED_DIAL_RATE;
const CONTACTS =
  flags.contacts === undefined
    ? CONCURRENCY * (2 + Math.ceil((RAMP_ESTIMATE + PLATEAU + 60) / (RING + TALK)))
    : positive('contacts');
/** The plateau starts once this share of TARGET is in flight, or when the ramp has taken too long. */
const PLATEAU_SHARE = 0.95;
const RAMP_TIMEOUT_MS = Math.max(120, 3 * RAMP_ESTIMATE) * 1000;
const TASK_QUEUE = 'switchboard';
const SWITCHBOARD = ['worker', 'api'];

const GOALS = {
  workerRss: 1024 * 1024 * 1024,
  apiRss: 400 * 1024 * 1024,
  /** Worker + API while calls wait: 20 % of one core. */
  waitingMsPerSecond: 200,
  readP99Ms: 100,
  pauseP99Ms: 1000,
};

interface CampaignHandle {
  id: number;
  org: Organization;
}

const headersOf = (org: Organization) => ({ 'X-API-Key': org.apiKey });

async function createCampaign(base: string, org: Organization, index: number): Promise<CampaignHandle> {
  const res = await fetch(`${base}/api/v1/campaign/sources?file_name=inflight-${index}.csv`, {
    method: 'POST',
    headers: { ...headersOf(org), 'Content-Type': 'text/csv' },
    body: contactsCsv(CONTACTS),
  });
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  const { source_id: sourceId } = (await res.json()) as { source_id: string };
  const { id } = await postJson<{ id: number }>(
    `${base}/api/v1/campaign/create`,
    {
      name: `In flight ${index}`,
      workflow_id: org.agentId,
      source_type: 'csv',
      source_id: sourceId,
      max_concurrency: CONCURRENCY,
      retry_config: { enabled: false },
    },
    headersOf(org),
  );
  return { id, org };
}

/** One client reading throughout, one request at a time: each campaign's progress, then its agent's runs. */
function pollReads(base: string, campaigns: CampaignHandle[]) {
  const progress: number[] = [];
  const runs: number[] = [];
  const failures: string[] = [];
  let running = true;
  const timed = async (url: string, org: Organization, into: number[]) => {
    const started = performance.now();
    try {
      const res = await fetch(url, { headers: headersOf(org) });
      await res.arrayBuffer();
      into.push(performance.now() - started);
      if (!res.ok && failures.length < 5) failures.push(`${url} answered ${res.status}`);
    } catch (error) {
      // Reported, and the reads go on: the run's other figures are still worth having.
      if (failures.length < 5) failures.push(`${url} failed: ${String(error)}`);
      await sleep(1000);
    }
  };
  const loop = (async () => {
    for (let i = 0; running; i += 1) {
      const campaign = campaigns[i % campaigns.length];
      if (!campaign) return;
      await timed(`${base}/api/v1/campaign/${campaign.id}/progress`, campaign.org, progress);
      await timed(`${base}/api/v1/workflow/${campaign.org.agentId}/runs`, campaign.org, runs);
      if (READ_PAUSE_MS > 0) await sleep(READ_PAUSE_MS);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { progress: summarize(progress), runs: summarize(runs), failures };
    },
  };
}

async function scrape(port: number): Promise<MetricSample[]> {
  return parsePrometheus(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
}

/** What the worker's own metrics say about an interval: task latency, cache evictions, failed tasks. */
function workerMetrics(before: MetricSample[], after: MetricSample[]) {
  const buckets = histogramBuckets(after, 'temporal_workflow_task_schedule_to_start_latency', before);
  const delta = (name: string) => metricSum(after, name) - metricSum(before, name);
  return {
    scheduleToStartP50: histogramQuantile(buckets, 0.5),
    scheduleToStartP99: histogramQuantile(buckets, 0.99),
    workflowTasks: buckets.at(-1)?.[1] ?? 0,
    evictions: delta('temporal_sticky_cache_total_forced_eviction'),
    failedTasks: delta('temporal_workflow_task_execution_failed'),
    cacheSize: metricSum(after, 'temporal_sticky_cache_size'),
  };
}

/** Waits until `probe` reports PLATEAU_SHARE of TARGET in flight (or the ramp timeout); returns the ramp's time. */
async function ramp(probe: PlateauProbe, what: string): Promise<number> {
  const started = performance.now();
  let last = 0;
  while (performance.now() - started < RAMP_TIMEOUT_MS) {
    last = await probe.inFlight();
    if (last >= PLATEAU_SHARE * TARGET) return performance.now() - started;
    await sleep(2000);
  }
  say(`${what}: only ${last} of ${TARGET} in flight after ${seconds(RAMP_TIMEOUT_MS)}; sampling that plateau`);
  return performance.now() - started;
}

/** One line of a plateau's figures: calls in flight, RSS and CPU ms/s by process. */
function describePlateau(plateau: Plateau): string {
  const rss = Object.entries(plateau.rss).map(([name, { mean, peak }]) => `${name} ${mib(mean)}/${mib(peak)}`);
  const cpu = Object.keys(plateau.rss).map((name) => `${name} ${meanCpuPerSecond(plateau, [name]).toFixed(0)}`);
  return (
    `in flight ${plateau.inFlight.mean.toFixed(0)} (max ${plateau.inFlight.max}); RSS mean/peak ${rss.join(', ')}; ` +
    `CPU ms/s ${cpu.join(', ')}; waiting ${JSON.stringify(waitingCost(plateau, SWITCHBOARD))}`
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-inflight-'));
  chmodSync(dir, 0o755);
  let database: Database | undefined;
  let temporal: RunningTemporal | undefined;
  let api: RunningApi | undefined;
  let worker: RunningWorker | undefined;
  let connection: Connection | undefined;
  let pg: PgClient | undefined;
  const load: { start: number[]; end: number[] } = { start: loadavg(), end: [] };
  const machine = machineCpuMeter();
  try {
    database = await startDatabase();
    await migrate(database.url);
    temporal = await startTemporal(dir, temporalModeOf(flags.temporal), database.url);
    const secretsKey = randomBytes(32).toString('hex');
    api = await startApi(database.url, {
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      SECRETS_KEY: secretsKey,
      SIGNUP_MAX_PER_ADDRESS: String(ORGANIZATIONS + 10),
      // Every organization may hold all of its campaigns at once.
      ORG_MAX_CALLS_IN_FLIGHT: String(Math.ceil(CAMPAIGNS / ORGANIZATIONS) * CONCURRENCY),
      CAMPAIGN_MAX_CONCURRENCY: String(Math.max(CONCURRENCY, 100)),
    });
    const metricsPort = await freePort();
    const workerEnv = {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: TASK_QUEUE,
      SECRETS_KEY: secretsKey,
      PUBLIC_BASE_URL: api.base,
      WORKER_METRICS_PORT: String(metricsPort),
    };
    connection = await Connection.connect({ address: temporal.address });
    const client = new Client({ connection, dataConverter: benchDataConverter });
    pg = new PgClient({ connectionString: database.url });
    await pg.connect();
    const db = pg;
    say(`Temporal: ${temporal.mode}`);
    say(
      `${CAMPAIGNS} campaigns in ${ORGANIZATIONS} organizations, max_concurrency ${CONCURRENCY}, ${CONTACTS} contacts each; ` +
        `calls ring ${RING} s and talk ${TALK} s; plateau ${PLATEAU} s at about ${TARGET} in flight`,
    );

    const orgs: Organization[] = [];
    for (let i = 0; i < ORGANIZATIONS; i += 1) {
      orgs.push(
        await setUpOrganization(api.base, {
          account: { email: `inflight-${i}@example.com`, password: 'bench password' },
          simulator: { ring_seconds: RING, talk_seconds: TALK },
        }),
      );
    }
    const campaigns: CampaignHandle[] = [];
    for (let i = 0; i < CAMPAIGNS; i += 1)
      campaigns.push(await createCampaign(api.base, orgs[i % ORGANIZATIONS] as Organization, i));
    say(`${CAMPAIGNS} campaigns created (draft)`);

    const baseProcesses = {
      temporal: findProcess('start-dev', `--port ${temporal.address.split(':').pop()}`),
      postgres: findProcess('bin/postgres', `-p ${new URL(database.url).port}`),
      api: api.pid ?? null,
    };

    // Baseline: timer children on a worker of its own, so each phase's memory starts from a fresh process.
    worker = await startWorker(workerEnv);
    const floorWorker = worker;
    const floorIds = campaigns.map((_, i) => `inflight-floor-${i}`);
    const floorProbe: PlateauProbe = {
      inFlight: () =>
        client.workflow.count('WorkflowType = "noopWorkflow" AND ExecutionStatus = "Running"').then((c) => c.count),
      ended: () =>
        client.workflow.count('WorkflowType = "noopWorkflow" AND ExecutionStatus = "Completed"').then((c) => c.count),
    };
    const floorIdleRss = residentBytes(floorWorker.pid) ?? 0;
    for (const workflowId of floorIds) {
      await client.workflow.start(noopParentWorkflow, {
        taskQueue: TASK_QUEUE,
        workflowId,
        args: [CONTACTS, CONCURRENCY, RING + TALK],
      });
    }
    const floorRampMs = await ramp(floorProbe, 'baseline');
    say(
      `baseline: ${await floorProbe.inFlight()} timer children waiting after ${seconds(floorRampMs)}; sampling ${PLATEAU} s`,
    );
    const floorMetricsBefore = await scrape(metricsPort);
    const floorReads = pollReads(api.base, campaigns);
    const floor = await samplePlateau({ ...baseProcesses, worker: floorWorker.pid }, floorProbe, PLATEAU, SAMPLE);
    const floorReadLatency = await floorReads.stop();
    const floorMetrics = workerMetrics(floorMetricsBefore, await scrape(metricsPort));
    for (const workflowId of floorIds) {
      await client.workflow.getHandle(workflowId).terminate('baseline measured');
    }
    await worker.stop();
    worker = undefined;

    // Measured: the campaigns, on a fresh worker.
    worker = await startWorker(workerEnv);
    const campaignWorker = worker;
    const idleRss = residentBytes(campaignWorker.pid) ?? 0;
    const ids = campaigns.map((campaign) => campaign.id);
    const probe: PlateauProbe = {
      inFlight: async () =>
        (
          await db.query<{ count: number }>(
            `SELECT count(*)::int AS count FROM campaign_attempts WHERE campaign_id = ANY($1) AND status = 'dialing'`,
            [ids],
          )
        ).rows[0]?.count ?? 0,
      ended: async () =>
        (
          await db.query<{ count: number }>(
            `SELECT count(*)::int AS count FROM campaign_attempts WHERE campaign_id = ANY($1) AND status = 'finished'`,
            [ids],
          )
        ).rows[0]?.count ?? 0,
    };
    const startedAt = performance.now();
    for (const campaign of campaigns) {
      await postJson(`${api.base}/api/v1/campaign/${campaign.id}/start`, {}, headersOf(campaign.org));
    }
    say(`${CAMPAIGNS} campaigns started in ${seconds(performance.now() - startedAt)}`);
    const rampMs = await ramp(probe, 'campaigns');
    say(`campaigns: ${await probe.inFlight()} calls in flight after ${seconds(rampMs)}; sampling ${PLATEAU} s`);
    const metricsBefore = await scrape(metricsPort);
    const reads = pollReads(api.base, campaigns);
    const plateau = await samplePlateau({ ...baseProcesses, worker: campaignWorker.pid }, probe, PLATEAU, SAMPLE);
    const metrics = workerMetrics(metricsBefore, await scrape(metricsPort));
    // Said at once, so that a run that fails later (the drain) still leaves its plateau's figures.
    say(`plateau: ${describePlateau(plateau)}; ${JSON.stringify(metrics)}`);
    say(`baseline plateau: ${describePlateau(floor)}; ${JSON.stringify(floorMetrics)}`);

    // Ten campaigns paused one after another, while the others keep dialing and the reads go on.
    const pauses: { id: number; postedAt: number; answerMs: number }[] = [];
    for (const campaign of campaigns.slice(0, PAUSES)) {
      const postedAt = Date.now();
      const started = performance.now();
      await postJson(`${api.base}/api/v1/campaign/${campaign.id}/pause`, {}, headersOf(campaign.org));
      pauses.push({ id: campaign.id, postedAt, answerMs: performance.now() - started });
    }
    const readLatency = await reads.stop();
    say(`reads: ${JSON.stringify(readLatency)}; baseline reads: ${JSON.stringify(floorReadLatency)}`);
    say(`pause answers (ms): ${pauses.map((pause) => pause.answerMs.toFixed(0)).join(', ')}`);
    // Dials already under way when the pause was answered would land within a few seconds.
    await sleep(10_000);
    const dialsAfterPause = await Promise.all(
      pauses.map(async (pause) => {
        const answeredAt = new Date(pause.postedAt + pause.answerMs);
        const { rows } = await db.query<{ after: number; last: Date | null }>(
          `SELECT count(*) FILTER (WHERE created_at > $2)::int AS after, max(created_at) AS last
             FROM simulator_calls WHERE idempotency_key LIKE $1`,
          [`campaign-${pause.id}/%`, answeredAt],
        );
        const last = rows[0]?.last?.getTime() ?? pause.postedAt;
        return { ...pause, after: rows[0]?.after ?? 0, lastDialMs: last - pause.postedAt };
      }),
    );
    for (const campaign of campaigns.slice(0, PAUSES)) {
      await postJson(`${api.base}/api/v1/campaign/${campaign.id}/resume`, {}, headersOf(campaign.org));
    }

    say('waiting for every campaign to complete');
    const deadline = Date.now() + Math.max(15 * 60_000, ((CAMPAIGNS * CONTACTS) / 5) * 1000);
    const finals = new Map<
      number,
      { state: string; processed_rows: number; failed_rows: number; executed_count: number }
    >();
    for (const campaign of campaigns) {
      for (;;) {
        const res = await fetch(`${api.base}/api/v1/campaign/${campaign.id}`, { headers: headersOf(campaign.org) });
        const body = (await res.json()) as {
          state: string;
          processed_rows: number;
          failed_rows: number;
          executed_count: number;
        };
        if (body.state !== 'running') {
          finals.set(campaign.id, body);
          break;
        }
        if (Date.now() > deadline) throw new Error(`campaign ${campaign.id} still running: ${JSON.stringify(body)}`);
        await sleep(2000);
      }
    }
    const { rows: statuses } = await db.query<{ status: string | null; count: number }>(
      `SELECT gathered_context->>'call_status' AS status, count(*)::int AS count FROM runs
        WHERE campaign_id = ANY($1) GROUP BY 1 ORDER BY 2 DESC`,
      [ids],
    );
    const { rows: dialRows } = await db.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM simulator_calls WHERE ${ids.map((_, i) => `idempotency_key LIKE $${i + 1}`).join(' OR ')}`,
      ids.map((id) => `campaign-${id}/%`),
    );
    let taskTimeouts = 0;
    let taskFailures = 0;
    for (const id of ids) {
      const chain = await chainHistory(client, `campaign-${id}`);
      taskTimeouts += chain.kinds.get('workflowTaskTimedOut') ?? 0;
      taskFailures += chain.kinds.get('workflowTaskFailed') ?? 0;
    }
    load.end = loadavg();
    const machineBusy = machine.stop();

    // The report.
    const expected = CAMPAIGNS * CONTACTS;
    const completed = statuses.find((row) => row.status === 'completed')?.count ?? 0;
    const dials = dialRows[0]?.count ?? 0;
    const countersExact = [...finals.values()].every(
      (body) => body.state === 'completed' && body.processed_rows === CONTACTS && body.failed_rows === 0,
    );
    const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
    const ms = (value: number) => `${value.toFixed(0)} ms`;
    const cpu = (plateauOf: Plateau, names: string[]) => meanCpuPerSecond(plateauOf, names);
    const waiting = waitingCost(plateau, SWITCHBOARD);
    const floorWaiting = waitingCost(floor, SWITCHBOARD);
    const allProcesses = ['worker', 'api', 'temporal', 'postgres'];
    const perCall = (rssNow: number, idle: number, inFlight: number) =>
      `${((rssNow - idle) / inFlight / 1024).toFixed(0)} KiB`;
    const pauseAnswers = summarize(dialsAfterPause.map((pause) => pause.answerMs));
    const lastDial = summarize(dialsAfterPause.map((pause) => pause.lastDialMs));
    const newDials = dialsAfterPause.reduce((sum, pause) => sum + pause.after, 0);

    console.log(
      `\nbench:inflight: ${CAMPAIGNS} campaigns × max_concurrency ${CONCURRENCY} in ${ORGANIZATIONS} organizations, ` +
        `${CONTACTS} contacts each, ring ${RING} s, talk ${TALK} s; Temporal ${temporal.mode}`,
    );
    console.log(
      `load average ${load.start.map((v) => v.toFixed(2)).join(' ')} at start, ${load.end.map((v) => v.toFixed(2)).join(' ')} at end; ` +
        `machine ${machineBusy.toFixed(0)} % busy over the run`,
    );
    console.log(`ramp: campaigns ${seconds(rampMs)}, baseline ${seconds(floorRampMs)}`);
    console.log('figure                                   measured            baseline (timer children)   goal');
    const row = (name: string, measured: string, baseline: string, goal: string) =>
      console.log(`  ${name.padEnd(38)} ${measured.padEnd(19)} ${baseline.padEnd(27)} ${goal}`);
    row(
      'in flight during the plateau (min–max)',
      `${plateau.inFlight.mean.toFixed(0)} (${Math.min(...plateau.intervals.map((i) => i.inFlight))}–${plateau.inFlight.max})`,
      `${floor.inFlight.mean.toFixed(0)} (${Math.min(...floor.intervals.map((i) => i.inFlight))}–${floor.inFlight.max})`,
      `≈ ${TARGET}`,
    );
    row(
      'calls ended per second (turnover)',
      summarize(plateau.intervals.map((i) => i.endedPerSecond)).mean.toFixed(1),
      summarize(floor.intervals.map((i) => i.endedPerSecond)).mean.toFixed(1),
      '–',
    );
    const workerRss = plateau.rss.worker ?? { mean: 0, peak: 0 };
    const floorWorkerRss = floor.rss.worker ?? { mean: 0, peak: 0 };
    row(
      'worker RSS, peak (mean)',
      `${mib(workerRss.peak)} (${mib(workerRss.mean)})`,
      `${mib(floorWorkerRss.peak)} (${mib(floorWorkerRss.mean)})`,
      `< 1024 MiB: ${verdict(workerRss.peak < GOALS.workerRss)}`,
    );
    row(
      'worker RSS per call in flight',
      perCall(workerRss.mean, idleRss, plateau.inFlight.mean),
      perCall(floorWorkerRss.mean, floorIdleRss, floor.inFlight.mean),
      `(idle worker ${mib(idleRss)}; baseline's ${mib(floorIdleRss)})`,
    );
    const apiRss = plateau.rss.api ?? { mean: 0, peak: 0 };
    row(
      'API RSS, peak',
      mib(apiRss.peak),
      mib(floor.rss.api?.peak ?? 0),
      `< 400 MiB: ${verdict(apiRss.peak < GOALS.apiRss)}`,
    );
    row('Temporal RSS, peak', mib(plateau.rss.temporal?.peak ?? 0), mib(floor.rss.temporal?.peak ?? 0), '–');
    for (const name of allProcesses) {
      row(`CPU ${name}, ms per second`, cpu(plateau, [name]).toFixed(0), cpu(floor, [name]).toFixed(0), '–');
    }
    row(
      'CPU worker + API while calls only wait',
      `${waiting.waitingMsPerSecond.toFixed(0)} ms/s`,
      `${floorWaiting.waitingMsPerSecond.toFixed(0)} ms/s`,
      `< ${GOALS.waitingMsPerSecond} ms/s (20 % of a core): ${verdict(waiting.waitingMsPerSecond < GOALS.waitingMsPerSecond)}`,
    );
    row(
      '  … per call in flight',
      `${((waiting.waitingMsPerSecond / plateau.inFlight.mean) * 1000).toFixed(1)} µs/s`,
      `${((floorWaiting.waitingMsPerSecond / floor.inFlight.mean) * 1000).toFixed(1)} µs/s`,
      '(intercept of CPU on turnover)',
    );
    row(
      '  CPU worker + API per ended call',
      ms(waiting.msPerEnding),
      ms(floorWaiting.msPerEnding),
      '(slope of the same line)',
    );
    row(
      'GET /campaign/{id}/progress p50 / p99',
      `${ms(readLatency.progress.p50)} / ${ms(readLatency.progress.p99)}`,
      `${ms(floorReadLatency.progress.p50)} / ${ms(floorReadLatency.progress.p99)} (drafts)`,
      `p99 < 100 ms: ${verdict(readLatency.progress.p99 < GOALS.readP99Ms)} (${readLatency.progress.count} reads)`,
    );
    row(
      'GET /workflow/{id}/runs p50 / p99',
      `${ms(readLatency.runs.p50)} / ${ms(readLatency.runs.p99)}`,
      `${ms(floorReadLatency.runs.p50)} / ${ms(floorReadLatency.runs.p99)}`,
      `p99 < 100 ms: ${verdict(readLatency.runs.p99 < GOALS.readP99Ms)} (${readLatency.runs.count} reads)`,
    );
    for (const failure of [...readLatency.failures, ...floorReadLatency.failures])
      console.log(`    read failed: ${failure}`);
    row(
      `pause answered, p50 / p99 (${pauses.length})`,
      `${ms(pauseAnswers.p50)} / ${ms(pauseAnswers.p99)}`,
      '–',
      `p99 < 1000 ms: ${verdict(pauseAnswers.p99 < GOALS.pauseP99Ms)}`,
    );
    row(
      'last dial after the pause was posted',
      `p50 ${ms(lastDial.p50)}, max ${ms(lastDial.max)}`,
      '–',
      '(negative: before it)',
    );
    row('dials after the pause answer', String(newDials), '–', `0: ${verdict(newDials === 0)}`);
    row(
      'workflow task schedule-to-start p50/p99',
      `≤ ${metrics.scheduleToStartP50} / ≤ ${metrics.scheduleToStartP99} ms`,
      `≤ ${floorMetrics.scheduleToStartP50} / ≤ ${floorMetrics.scheduleToStartP99} ms`,
      `(bucket bounds; ${metrics.workflowTasks} / ${floorMetrics.workflowTasks} tasks)`,
    );
    row(
      'sticky cache: forced evictions (size)',
      `${metrics.evictions} (${metrics.cacheSize})`,
      `${floorMetrics.evictions} (${floorMetrics.cacheSize})`,
      'no storm',
    );
    row('workflow tasks failed (worker metric)', String(metrics.failedTasks), String(floorMetrics.failedTasks), '–');
    row('campaign histories: task timeouts, failures', `${taskTimeouts}, ${taskFailures}`, '–', '–');
    console.log(
      `after: ${expected} contacts; call_status ${statuses.map((r) => `${r.status} ${r.count}`).join(', ')}; ${dials} dials`,
    );
    console.log(
      `  every call completed: ${verdict(completed === expected)}; one dial each: ${verdict(dials === expected)}; ` +
        `counters exact (processed ${CONTACTS}, failed 0, completed): ${verdict(countersExact)}`,
    );
    if (completed !== expected || dials !== expected || !countersExact) {
      for (const [id, body] of finals) console.log(`  campaign ${id}: ${JSON.stringify(body)}`);
      process.exitCode = 1;
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
