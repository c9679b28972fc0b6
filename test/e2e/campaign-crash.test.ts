import type { Client } from '@temporalio/client';
import { callingOrganization } from '../helpers/calls';
import { campaignRow, campaignSettings, insertCampaign, startCampaignWorkflow } from '../helpers/campaigns';
import { localActivityTypes } from '../helpers/histories';
import { useTestServices } from '../helpers/services';
import { startCampaignStack, type CampaignStack } from '../helpers/stack-processes';
import { uniqueTaskQueue } from '../helpers/temporal';
import { waitFor } from '../helpers/wait-for';

const services = useTestServices();
const taskQueue = uniqueTaskQueue('campaign-crash');
let stack: CampaignStack | undefined;

/**
 * Few contacts, and a server that suggests continuing as new early: each kill still lands mid-campaign
 * with calls in flight (MAX_CONCURRENCY of them, and twice that many contacts still to dial when
 * the API dies), and the campaign still continues as new, without dialing thousands of numbers.
 */
const CONTACTS = 120;
const MAX_CONCURRENCY = 25;
const SUGGEST_CONTINUE_AS_NEW_EVENTS = 300;
/** The kill points, in processed contacts: the worker, Temporal, the worker again, the API. */
const KILL_AT = [15, 35, 55, 70] as const;

beforeAll(async () => {
  stack = await startCampaignStack(services.db.url, taskQueue, {
    suggestContinueAsNewEvents: SUGGEST_CONTINUE_AS_NEW_EVENTS,
  });
}, 180_000);
afterAll(() => stack?.close());

/** Every tenth contact is busy (retried once), every 25th fails; the rest answer. */
const suffixOf = (index: number): string => (index % 10 === 3 ? '0486' : index % 25 === 7 ? '0503' : '7777');
/** How long the API stays dead: calls dialed meanwhile lose their webhooks and must poll. */
const API_DOWN_MS = 5_000;
/** How long each step of the campaign may take, polled gently (the database is also under load). */
const STEP = { timeoutMs: 300_000, intervalMs: 200 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Workflow ids of the campaign's calls the simulator dialed in [from, to). */
async function dialedBetween(campaignId: number, from: Date, to: Date): Promise<string[]> {
  const rows = await services.db.dataSource.query<{ key: string }[]>(
    `SELECT idempotency_key AS key FROM simulator_calls
      WHERE idempotency_key LIKE $1 AND started_at >= $2 AND started_at < $3`,
    [`campaign-${campaignId}/%`, from, to],
  );
  // The key is `<call workflow id>:<attempt>`.
  return rows.map((row) => row.key.slice(0, row.key.lastIndexOf(':')));
}

/**
 * Whether the call workflow looked its call up with the provider (getCallStatus), as an activity or
 * as a local activity (a marker whose data names the activity type).
 */
async function polled(client: Client, workflowId: string): Promise<boolean> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return (
    events.some((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'getCallStatus') ||
    localActivityTypes(events).includes('getCallStatus')
  );
}

it('loses no contact and dials no attempt twice when its worker, Temporal and API are killed', async () => {
  if (!stack) throw new Error('the stack did not start');
  const { worker, temporal, api, client } = stack;
  const org = await callingOrganization(stack.apiBaseUrl, { ring_seconds: 0, talk_seconds: 0 });
  const contacts = Array.from({ length: CONTACTS }, (_, index) => ({
    phoneNumber: `+1415${String(index).padStart(4, '0')}${suffixOf(index)}`,
  }));
  const busy = contacts.filter((contact) => contact.phoneNumber.endsWith('0486')).length;
  const failed = contacts.filter((contact) => contact.phoneNumber.endsWith('0503')).length;
  const settings = campaignSettings({
    max_concurrency: MAX_CONCURRENCY,
    retry_config: {
      enabled: true,
      max_retries: 1,
      retry_delay_seconds: 1,
      retry_on_busy: true,
      retry_on_no_answer: true,
      retry_on_voicemail: true,
    },
  });
  const { campaignId } = await insertCampaign(services.db.dataSource, org, contacts, settings);
  // A conversation cut off by the kill is retried after its activity timeout (max_call_duration + 60 s):
  // keep it short so the test does not wait the default five minutes.
  await services.db.dataSource.query(
    `UPDATE agent_versions SET workflow_configurations = workflow_configurations || '{"max_call_duration": 10}'
      WHERE id = $1`,
    [org.agent.current_definition_id],
  );
  const processed = async () => (await campaignRow(services.db.dataSource, campaignId)).processed_rows;
  // Every probe first checks that no process died on its own, so a crash fails the test at once.
  const reached = (count: number) => async () => {
    stack?.assertAlive();
    return (await processed()) >= count;
  };
  const completed = async () => {
    stack?.assertAlive();
    return (await campaignRow(services.db.dataSource, campaignId)).state === 'completed';
  };
  const timed = async (what: string, step: () => Promise<void>): Promise<void> => {
    const at = Date.now();
    await step();
    console.log(`${what} at ${await processed()} processed: ${Date.now() - at} ms`);
  };

  const began = Date.now();
  const handle = await startCampaignWorkflow(client, taskQueue, org, campaignId);
  await worker.start();
  await waitFor(`${KILL_AT[0]} contacts`, reached(KILL_AT[0]), STEP);
  await timed('worker SIGKILLed and respawned', async () => {
    await worker.kill('SIGKILL');
    await worker.start();
  });
  // SIGKILL: SQLite's journal makes each commit atomic, so a killed server loses nothing committed
  // and Temporal acknowledges nothing it has not committed.
  await waitFor(`${KILL_AT[1]} contacts`, reached(KILL_AT[1]), STEP);
  await timed('Temporal SIGKILLed and restarted on its file', async () => {
    await temporal.kill('SIGKILL');
    await temporal.start();
  });
  await waitFor(`${KILL_AT[2]} contacts`, reached(KILL_AT[2]), STEP);
  await timed('worker SIGKILLed and respawned', async () => {
    await worker.kill('SIGKILL');
    await worker.start();
  });
  await waitFor(`${KILL_AT[3]} contacts`, reached(KILL_AT[3]), STEP);
  // Webhooks of calls dialed between the API's death and its respawn cannot have been delivered.
  let apiDead = { from: new Date(), to: new Date() };
  await timed(`API SIGKILLed, down ${API_DOWN_MS} ms and restarted`, async () => {
    await api.kill('SIGKILL');
    const from = new Date();
    await sleep(API_DOWN_MS);
    apiDead = { from, to: new Date() };
    await api.start();
  });
  await waitFor('the campaign to complete', completed, STEP);
  await handle.result();
  const seconds = (Date.now() - began) / 1000;
  console.log(`campaign of ${CONTACTS} contacts, worker killed twice, Temporal and API once: ${seconds.toFixed(1)} s`);
  // The history outgrew Temporal's suggestion: the campaign continued as new and carried on.
  expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);

  // Calls dialed while the API was dead lost their webhooks: each ended by asking the simulator.
  const orphaned = await dialedBetween(campaignId, apiDead.from, apiDead.to);
  const polledCalls = (await Promise.all(orphaned.map((workflowId) => polled(client, workflowId)))).filter(Boolean);
  console.log(
    `calls dialed while the API was down: ${orphaned.length}, ended by status polling: ${polledCalls.length}`,
  );
  expect(orphaned.length).toBeGreaterThan(0);
  expect(polledCalls.length).toBe(orphaned.length);

  // Counters exact: every contact once, busy ones dialed twice, retries included in the queue count.
  expect(await campaignRow(services.db.dataSource, campaignId)).toMatchObject({
    state: 'completed',
    total_rows: CONTACTS,
    total_queued_count: CONTACTS + busy,
    executed_count: CONTACTS + busy,
    processed_rows: CONTACTS,
    failed_rows: busy + failed,
  });
  // Every contact ends with exactly one final outcome; no attempt is left open.
  const [attempts] = await services.db.dataSource.query<
    { contacts: number; attempts: number; open: number; finals_wrong: number }[]
  >(
    `SELECT count(DISTINCT contact_id)::int AS contacts, count(*)::int AS attempts,
            count(*) FILTER (WHERE status <> 'finished')::int AS open,
            count(*) FILTER (WHERE attempt_number = 2 AND outcome <> 'busy')::int AS finals_wrong
       FROM campaign_attempts WHERE campaign_id = $1`,
    [campaignId],
  );
  expect(attempts).toEqual({ contacts: CONTACTS, attempts: CONTACTS + busy, open: 0, finals_wrong: 0 });
  // The simulator's own record: one call per attempt, never two for the same attempt.
  const [dials] = await services.db.dataSource.query<{ calls: number; keys: number; doubled: number }[]>(
    `WITH per_number AS (
       SELECT s.to_address, count(*) AS calls,
              (SELECT count(*) FROM campaign_attempts a JOIN campaign_contacts c ON c.id = a.contact_id
                WHERE a.campaign_id = $1 AND c.phone_number = s.to_address) AS attempts
         FROM simulator_calls s WHERE s.idempotency_key LIKE $2 GROUP BY s.to_address)
     SELECT (SELECT count(*)::int FROM simulator_calls WHERE idempotency_key LIKE $2) AS calls,
            (SELECT count(DISTINCT idempotency_key)::int FROM simulator_calls WHERE idempotency_key LIKE $2) AS keys,
            (SELECT count(*)::int FROM per_number WHERE calls <> attempts) AS doubled`,
    [campaignId, `campaign-${campaignId}/%`],
  );
  expect(dials).toEqual({ calls: CONTACTS + busy, keys: CONTACTS + busy, doubled: 0 });
  // Each final outcome counted once in the runs too.
  const [runs] = await services.db.dataSource.query<{ runs: number; open: number }[]>(
    `SELECT count(*)::int AS runs, count(*) FILTER (WHERE NOT is_completed)::int AS open FROM runs WHERE campaign_id = $1`,
    [campaignId],
  );
  expect(runs).toEqual({ runs: CONTACTS + busy, open: 0 });
}, 900_000);
