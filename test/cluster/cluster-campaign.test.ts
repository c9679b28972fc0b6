import type { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import request from 'supertest';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import {
  campaignLogs,
  campaignRow,
  campaignSettings,
  insertCampaign,
  startCampaignWorkflow,
} from '../helpers/campaigns';
import { saveCampaignDiagnostics } from '../helpers/campaign-diagnostics';
import { startClusterStack, type ClusterStack } from '../helpers/cluster-stack';
import { useTestServices } from '../helpers/services';
import { testWorkflowBundle, uniqueTaskQueue } from '../helpers/temporal';
import { waitFor } from '../helpers/wait-for';

/**
 * The production topology: the official Temporal server on PostgreSQL from the committed config,
 * two workers and two API processes in production mode, with parts of it killed mid-campaign.
 */
const services = useTestServices();
const taskQueue = uniqueTaskQueue('cluster');
let stack: ClusterStack | undefined;

/**
 * Few contacts, and a server that suggests continuing as new early: each kill still lands mid-campaign
 * with calls in flight, and the replayed histories include a continued-as-new campaign.
 */
const CONTACTS = 400;
const SUGGEST_CONTINUE_AS_NEW_EVENTS = 1_000;

beforeAll(async () => {
  // The first run on a machine builds the server with Go (minutes); later runs find it cached.
  stack = await startClusterStack(services.db.url, taskQueue, {
    suggestContinueAsNewEvents: SUGGEST_CONTINUE_AS_NEW_EVENTS,
    searchAttributesAtOnce: true,
  });
}, 1_200_000);
afterAll(() => stack?.close());

/** Every tenth contact is busy (retried once), every 25th fails; the rest answer. */
const suffixOf = (index: number): string => (index % 10 === 3 ? '0486' : index % 25 === 7 ? '0503' : '7777');
const API_DOWN_MS = 5_000;
const STEP = { timeoutMs: 300_000, intervalMs: 250 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function running(): ClusterStack {
  if (!stack) throw new Error('the cluster did not start');
  return stack;
}

/** Every run of a workflow id (continued-as-new included), oldest first, as histories. */
async function histories(client: Client, workflowId: string) {
  const runs = [];
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    runs.push({ workflowId, history: await client.workflow.getHandle(workflowId, execution.runId).fetchHistory() });
  }
  return runs;
}

const progressThrough = (baseUrl: string, org: CallingOrganization, campaignId: number) =>
  request(baseUrl).get(`/api/v1/campaign/${campaignId}/progress`).auth(org.owner.token, { type: 'bearer' });

it('completes 400 contacts exactly once across a killed worker, a restarted Temporal and a dead API', async () => {
  const cluster = running();
  const [firstApi, secondApi] = cluster.apiBaseUrls as [string, string];
  const [worker] = cluster.workers as [(typeof cluster.workers)[number]];
  const [apiOne] = cluster.apis as [(typeof cluster.apis)[number]];
  const org = await callingOrganization(firstApi, { ring_seconds: 0, talk_seconds: 0 });
  const contacts = Array.from({ length: CONTACTS }, (_, index) => ({
    phoneNumber: `+1415${String(index).padStart(4, '0')}${suffixOf(index)}`,
  }));
  const busy = contacts.filter((contact) => contact.phoneNumber.endsWith('0486')).length;
  const failed = contacts.filter((contact) => contact.phoneNumber.endsWith('0503')).length;
  const settings = campaignSettings({
    max_concurrency: 50,
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
  // A conversation cut off by a kill is retried after max_call_duration + 60 s: keep it short.
  await services.db.dataSource.query(
    `UPDATE agent_versions SET workflow_configurations = workflow_configurations || '{"max_call_duration": 10}'
      WHERE id = $1`,
    [org.agent.current_definition_id],
  );
  const processed = async () => (await campaignRow(services.db.dataSource, campaignId)).processed_rows;
  const reached = (count: number) => async () => {
    cluster.assertAlive();
    return (await processed()) >= count;
  };
  // A campaign that stops short keeps its state and histories for a look (the run's key dies with it).
  const progressed = (what: string, probe: () => Promise<boolean>) =>
    waitFor(what, probe, STEP).catch(async (error: unknown) => {
      const saved = await saveCampaignDiagnostics(
        cluster.client,
        cluster.dataConverter,
        services.db.dataSource,
        campaignId,
      ).then(
        (dir) => `are in ${dir}`,
        (failure: unknown) => `could not be saved: ${String(failure)}`,
      );
      throw new Error(`${String(error)}; the campaign's state and histories ${saved}`);
    });
  const timed = async (what: string, step: () => Promise<void>): Promise<void> => {
    const at = Date.now();
    await step();
    console.log(`${what} at ${await processed()} processed: ${Date.now() - at} ms`);
  };

  const began = Date.now();
  const handle = await startCampaignWorkflow(cluster.client, taskQueue, org, campaignId);
  await Promise.all(cluster.workers.map((w) => w.start()));
  await progressed('80 contacts', reached(80));
  await timed('worker 1 SIGKILLed and restarted', async () => {
    await worker.kill('SIGKILL');
    await worker.start();
  });
  await progressed('160 contacts', reached(160));
  await timed('Temporal server stopped (SIGKILL) and started again', async () => {
    await cluster.temporal.kill('SIGKILL');
    await cluster.temporal.start();
  });
  await progressed('240 contacts', reached(240));
  let polls = 0;
  const MIN_POLLS = 6;
  await timed(`API 1 SIGKILLed, down ${API_DOWN_MS} ms while clients poll API 2`, async () => {
    await apiOne.kill('SIGKILL');
    const until = Date.now() + API_DOWN_MS;
    // The whole downtime, and at least a few answers however slowly a loaded machine gives them.
    while (Date.now() < until || polls < MIN_POLLS) {
      const res = await progressThrough(secondApi, org, campaignId);
      expect(res.status).toBe(200);
      polls += 1;
      await sleep(250);
    }
    await apiOne.start();
  });
  await progressed('the campaign to complete', async () => {
    cluster.assertAlive();
    return (await campaignRow(services.db.dataSource, campaignId)).state === 'completed';
  });
  await handle.result();
  expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
  console.log(`cluster campaign of ${CONTACTS} contacts: ${((Date.now() - began) / 1000).toFixed(1)} s`);

  expect(await campaignRow(services.db.dataSource, campaignId)).toMatchObject({
    state: 'completed',
    total_rows: CONTACTS,
    total_queued_count: CONTACTS + busy,
    executed_count: CONTACTS + busy,
    processed_rows: CONTACTS,
    failed_rows: busy + failed,
  });
  const [attempts] = await services.db.dataSource.query<{ contacts: number; attempts: number; open: number }[]>(
    `SELECT count(DISTINCT contact_id)::int AS contacts, count(*)::int AS attempts,
            count(*) FILTER (WHERE status <> 'finished')::int AS open
       FROM campaign_attempts WHERE campaign_id = $1`,
    [campaignId],
  );
  expect(attempts).toEqual({ contacts: CONTACTS, attempts: CONTACTS + busy, open: 0 });
  // The simulator's dials per number: one per attempt (busy numbers twice), never more.
  const [dials] = await services.db.dataSource.query<{ numbers: number; calls: number; wrong: number }[]>(
    `WITH per_number AS (
       SELECT to_address, count(*)::int AS calls FROM simulator_calls WHERE idempotency_key LIKE $1 GROUP BY to_address)
     SELECT count(*)::int AS numbers, coalesce(sum(calls), 0)::int AS calls,
            count(*) FILTER (WHERE calls <> CASE WHEN to_address LIKE '%0486' THEN 2 ELSE 1 END)::int AS wrong
       FROM per_number`,
    [`campaign-${campaignId}/%`],
  );
  expect(dials).toEqual({ numbers: CONTACTS, calls: CONTACTS + busy, wrong: 0 });

  // The run's histories, pulled from this server, replay against the current workflow code.
  const callIds = await services.db.dataSource.query<{ id: string }[]>(
    `SELECT temporal_workflow_id AS id FROM campaign_attempts WHERE campaign_id = $1 ORDER BY random() LIMIT 25`,
    [campaignId],
  );
  const pulled = [
    ...(await histories(cluster.client, `campaign-${campaignId}`)),
    ...(await Promise.all(callIds.map(({ id }) => histories(cluster.client, id)))).flat(),
  ];
  expect(pulled.length).toBeGreaterThan(25);
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories(
    { workflowBundle: testWorkflowBundle(), replayName: 'replay-cluster', dataConverter: cluster.dataConverter },
    pulled,
  )) {
    if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
  }
  expect(failures).toEqual([]);
}, 900_000);

it('takes pause, resume and cancel sent to both API processes at once exactly once', async () => {
  const cluster = running();
  const apis = cluster.apiBaseUrls;
  const org = await callingOrganization(apis[1] ?? '', { ring_seconds: 1, talk_seconds: 1 });
  const contacts = Array.from({ length: 200 }, (_, index) => ({
    phoneNumber: `+1628${String(index).padStart(7, '0')}`,
  }));
  const { campaignId } = await insertCampaign(
    services.db.dataSource,
    org,
    contacts,
    campaignSettings({ max_concurrency: 2 }),
  );
  const handle = await startCampaignWorkflow(cluster.client, taskQueue, org, campaignId);
  await waitFor(
    'the campaign to run',
    async () => (await campaignRow(services.db.dataSource, campaignId)).state === 'running',
    STEP,
  );

  const both = async (action: 'pause' | 'resume' | 'cancel') => {
    const statuses = await Promise.all(
      apis.map((api) =>
        request(api)
          .post(`/api/v1/campaign/${campaignId}/${action}`)
          .auth(org.owner.token, { type: 'bearer' })
          .then((res) => res.status),
      ),
    );
    return statuses.sort();
  };
  expect(await both('pause')).toEqual([200, 409]);
  const paused = await request(apis[1] ?? '')
    .get(`/api/v1/campaign/${campaignId}`)
    .auth(org.owner.token, { type: 'bearer' });
  expect(paused.body).toMatchObject({ state: 'paused' });
  expect(await both('resume')).toEqual([200, 409]);
  expect(await both('cancel')).toEqual([200, 409]);
  await handle.result();

  expect((await campaignRow(services.db.dataSource, campaignId)).state).toBe('cancelled');
  const events = (await campaignLogs(services.db.dataSource, campaignId)).map((log) => log.event);
  for (const event of ['campaign_paused', 'campaign_resumed', 'campaign_cancelled']) {
    expect(events.filter((e) => e === event)).toHaveLength(1);
  }
  // Temporal accepted each update once: the refused twin never reached the history.
  const accepted = (await handle.fetchHistory()).events
    ?.map((event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name)
    .filter(Boolean);
  expect(accepted?.sort()).toEqual(['cancelCampaign', 'pauseCampaign', 'resumeCampaign']);
}, 600_000);
