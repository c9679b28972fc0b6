import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { campaignWorkflowId } from '../../workflows/definitions';
import {
  AgentIdAttribute,
  CampaignIdAttribute,
  CampaignStateAttribute,
  OrganizationIdAttribute,
} from '../../workflows/search-attributes';
import { buildTestApp } from '../helpers/app';
import { userMetadataSummaries } from '../helpers/histories';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { callWorker } from '../helpers/call-worker';
import { useTestServices } from '../helpers/services';
import { uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { waitFor } from '../helpers/wait-for';

/**
 * The campaign routes against the real campaign workflow: API, Temporal, a worker, PostgreSQL and
 * the simulator carrier (whose number suffixes choose each call's outcome).
 */
const services = useTestServices();

let http: Server;
let baseUrl: string;
let taskQueue: string;
let app: ReturnType<typeof buildTestApp>['app'];
let org: CallingOrganization;

beforeAll(async () => {
  // The simulator posts its status webhooks to PUBLIC_BASE_URL: the app listens on a real port.
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  taskQueue = uniqueTaskQueue('campaigns');
  app = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY },
  ).app;
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  org = await callingOrganization(app.callback(), { ring_seconds: 0, talk_seconds: 1 });
});

/** Runs `test` while a worker serves this file's task queue (a worker runs once: each test makes its own). */
async function withWorker(test: () => Promise<void>): Promise<void> {
  const worker = await callWorker(services, { taskQueue, baseUrl, identity: 'e2e-campaigns' });
  await worker.runUntil(test);
}

afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

const api = () => ({
  get: (path: string) => request(app.callback()).get(`/api/v1${path}`).set('X-API-Key', org.apiKey),
  post: (path: string, body?: object) =>
    request(app.callback()).post(`/api/v1${path}`).set('X-API-Key', org.apiKey).send(body),
  patch: (path: string, body: object) =>
    request(app.callback()).patch(`/api/v1${path}`).set('X-API-Key', org.apiKey).send(body),
});

/** Uploads contacts through the real upload route; returns the `source_id`. */
async function upload(numbers: string[]): Promise<string> {
  const csv = ['phone_number,first_name', ...numbers.map((number, index) => `${number},Contact ${index + 1}`)].join(
    '\n',
  );
  const res = await request(app.callback())
    .post('/api/v1/campaign/sources?file_name=contacts.csv')
    .set('X-API-Key', org.apiKey)
    .set('Content-Type', 'text/csv')
    .send(csv);
  expect(res.status).toBe(201);
  return res.body.source_id as string;
}

/** Distinct valid numbers (exchange 200..999); the last four digits choose the simulator's outcome. */
const numbered = (count: number, suffix: (index: number) => string) =>
  Array.from({ length: count }, (_, index) => `+1415${200 + index}${suffix(index)}`);

async function createCampaign(sourceId: string, settings: object = {}) {
  const res = await api().post('/campaign/create', {
    name: 'E2E campaign',
    workflow_id: org.agent.id,
    source_type: 'csv',
    source_id: sourceId,
    ...settings,
  });
  expect(res.status).toBe(201);
  return res.body as { id: number };
}

/** Polls the campaign until `done` holds (or fails the test after `timeoutMs`). */
async function pollCampaign<T extends { state: string }>(path: string, done: (body: T) => boolean): Promise<T> {
  let last: unknown;
  return waitFor(
    () => `${path}: ${JSON.stringify(last)}`,
    async () => {
      const res = await api().get(path);
      expect(res.status).toBe(200);
      last = res.body;
      return done(res.body as T) && (res.body as T);
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
}

describe('a campaign from start to completion', () => {
  let campaignId: number;

  it('starts (running, with search attributes and memo), reports live progress and completes with exact counters', () =>
    withWorker(async () => {
      const suffixes = ['0101', '0486', '0408', '0600', '0503'];
      const sourceId = await upload(numbered(10, (index) => suffixes[index % suffixes.length] ?? '0101'));
      ({ id: campaignId } = await createCampaign(sourceId, {
        max_concurrency: 3,
        retry_config: { max_retries: 1, retry_delay_seconds: 1, retry_on_voicemail: false },
      }));
      const res = await api().post(`/campaign/${campaignId}/start`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: campaignId, state: 'running', started_at: expect.any(String) });

      const description = await services.temporal.client.workflow.getHandle(campaignWorkflowId(campaignId)).describe();
      expect(description.taskQueue).toBe(taskQueue);
      expect(description.memo).toEqual({ campaignName: 'E2E campaign' });
      expect(description.typedSearchAttributes.get(CampaignIdAttribute)).toBe(campaignId);
      expect(description.typedSearchAttributes.get(OrganizationIdAttribute)).toBe(org.owner.user.organization_id);
      expect(description.typedSearchAttributes.get(AgentIdAttribute)).toBe(org.agent.id);
      expect(description.typedSearchAttributes.get(CampaignStateAttribute)).toBeDefined();
      // The Temporal UI's list and page say what the campaign is without opening its input.
      expect(await description.staticSummary()).toBe(`Campaign ${campaignId} "E2E campaign" · agent ${org.agent.id}`);
      expect(await description.staticDetails()).toContain('At most 3 calls at once · up to 1 retries after 1 s');

      const again = await api().post(`/campaign/${campaignId}/start`);
      expect(again.status).toBe(409);
      expect(again.body.detail).toMatch(/current state: (running|completed)$/);

      const live = await api().get(`/campaign/${campaignId}/progress`);
      expect(live.status).toBe(200);
      expect(live.body.source === 'workflow' || live.body.state === 'completed').toBe(true);

      const done = await pollCampaign<{ state: string }>(
        `/campaign/${campaignId}`,
        (body) => body.state === 'completed',
      );
      // 2 of each outcome; busy and no-answer retried once (voicemail retries are off): 10 + 4 attempts.
      expect(done).toMatchObject({
        total_rows: 10,
        processed_rows: 10,
        failed_rows: 8,
        executed_count: 14,
        total_queued_count: 14,
        completed_at: expect.any(String),
      });
      const progress = await api().get(`/campaign/${campaignId}/progress`);
      expect(progress.body).toMatchObject({
        state: 'completed',
        processed_rows: 10,
        progress_percentage: 100,
        outcomes: { completed: 2, busy: 2, 'no-answer': 2, voicemail: 2, failed: 2 },
        source: 'database',
      });
      const runs = await api().get(`/campaign/${campaignId}/runs?limit=100`);
      expect(runs.body.total_count).toBe(14);

      // The workflow's result is its final summary, and its current details say the same.
      const handle = services.temporal.client.workflow.getHandle(campaignWorkflowId(campaignId));
      expect(await handle.result()).toMatchObject({
        state: 'completed',
        processed_rows: 10,
        executed_count: 14,
        in_flight: 0,
        pending_retries: 0,
        outcomes: { completed: 2, busy: 2, 'no-answer': 2, voicemail: 2, failed: 2 },
      });
      const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
      expect(currentDetails).toContain('**completed** · 10 of 10 contacts done · 14 calls placed');
      expect(currentDetails).toContain('Outcomes: busy 2, completed 2, failed 2, no-answer 2, voicemail 2');
      // Each call says which campaign, contact and attempt it is.
      const [attempt] = await services.db.dataSource.query<{ temporal_workflow_id: string }[]>(
        `SELECT temporal_workflow_id FROM campaign_attempts WHERE campaign_id = $1 ORDER BY id LIMIT 1`,
        [campaignId],
      );
      const callHandle = services.temporal.client.workflow.getHandle(attempt?.temporal_workflow_id ?? '');
      const call = await callHandle.describe();
      expect(await call.staticSummary()).toMatch(
        new RegExp(`^Campaign ${campaignId} · \`\\*{8}\\d{4}\` · contact \\d+ \\(row \\d+\\) · attempt 1$`),
      );
      const { currentDetails: callDetails } = await callHandle.query<{ currentDetails: string }>(
        '__temporal_workflow_metadata',
      );
      expect(callDetails).toMatch(/^\*\*[a-z-]+\*\* · \d+ s · disposition \S+ · run \d+$/);
      expect(await call.staticDetails()).toMatch(/^Run \d+ via simulator · at most \d+ s · simulated conversation$/m);

      // Timers and activities say what they wait for and do, in the history's user metadata.
      const events = (await handle.fetchHistory()).events ?? [];
      // Every timer is a retry's delay (whether one is needed depends on the slots free when it is due).
      for (const timer of userMetadataSummaries(events.filter((event) => event.timerStartedEventAttributes))) {
        expect(timer).toMatch(/^retry (\d+ )?(busy|no-answer) contacts? in 1 s$/);
      }
      const summaries = userMetadataSummaries(events);
      expect(summaries).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^prepare \d+ dials?: attempts and runs$/),
          expect.stringMatching(/^record outcomes: \d+ \w/),
          'fetch up to 500 contacts after contact 0',
        ]),
      );
      expect(userMetadataSummaries((await callHandle.fetchHistory()).events ?? [])).toContain('dial via simulator');

      // The campaign's calls are found by its search attributes, and by outcome.
      const busyRuns = await services.db.dataSource.query<{ temporal_workflow_id: string }[]>(
        `SELECT temporal_workflow_id FROM runs WHERE campaign_id = $1 AND gathered_context->>'call_status' = 'busy'`,
        [campaignId],
      );
      expect(busyRuns.length).toBeGreaterThan(0);
      const query = `CampaignId = ${campaignId} AND AgentId = ${org.agent.id} AND CallStatus = "busy"`;
      const listed = await waitFor(
        () => `the workflows of ${query}`,
        async () => {
          const ids: string[] = [];
          for await (const workflow of services.temporal.client.workflow.list({ query })) ids.push(workflow.workflowId);
          return ids.length === busyRuns.length && ids;
        },
        { timeoutMs: 30_000, intervalMs: 500 },
      );
      expect(listed.sort()).toEqual(busyRuns.map((run) => run.temporal_workflow_id).sort());
    }));

  it('redials the busy, unanswered and voicemail contacts, linked both ways, and runs the redial', () =>
    withWorker(async () => {
      const res = await api().post(`/campaign/${campaignId}/redial`, { retry_config: { enabled: false } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ state: 'draft', total_rows: 6, parent_campaign_id: campaignId });
      const parent = await api().get(`/campaign/${campaignId}`);
      expect(parent.body.redialed_campaign_id).toBe(res.body.id);

      expect((await api().post(`/campaign/${res.body.id}/start`)).status).toBe(200);
      const done = await pollCampaign<{ state: string }>(
        `/campaign/${res.body.id}`,
        (body) => body.state === 'completed',
      );
      expect(done).toMatchObject({ processed_rows: 6, failed_rows: 6, executed_count: 6 });
    }));
});

describe('pause, PATCH, resume and cancel through Temporal Updates', () => {
  it('follows each transition and refuses the wrong ones', () =>
    withWorker(async () => {
      const sourceId = await upload(numbered(30, () => '0101'));
      const { id } = await createCampaign(sourceId, { max_concurrency: 1 });
      expect((await api().post(`/campaign/${id}/start`)).body.state).toBe('running');

      const refused = await api().patch(`/campaign/${id}`, { max_concurrency: 2 });
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({ detail: 'Campaign can only be updated in draft or paused state' });

      const paused = await api().post(`/campaign/${id}/pause`);
      expect(paused.status).toBe(200);
      expect(paused.body.state).toBe('paused');
      // The UI's header says Running (the execution is open); its current details say paused.
      const handle = services.temporal.client.workflow.getHandle(campaignWorkflowId(id));
      const details = await waitFor(
        () => 'current details that say paused',
        async () => {
          const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
          return currentDetails.startsWith('**paused** · ') && currentDetails;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      expect(details).toMatch(/^\*\*paused\*\* · \d+ of 30 contacts done · \d+ calls placed/);
      const pausedAgain = await api().post(`/campaign/${id}/pause`);
      expect(pausedAgain.status).toBe(409);
      expect(pausedAgain.body.detail).toMatch(/paused/);

      const patched = await api().patch(`/campaign/${id}`, { max_concurrency: 2, retry_config: { max_retries: 0 } });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ state: 'paused', max_concurrency: 2, retry_config: { max_retries: 0 } });

      const resumed = await api().post(`/campaign/${id}/resume`);
      expect(resumed.status).toBe(200);
      expect(resumed.body.state).toBe('running');
      const progress = await api().get(`/campaign/${id}/progress`);
      expect(progress.body).toMatchObject({ state: 'running', source: 'workflow', total_rows: 30 });

      const cancelled = await api().post(`/campaign/${id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.state).toBe('cancelled');
      const done = await pollCampaign<{ state: string; processed_rows: number; logs: { event: string }[] }>(
        `/campaign/${id}`,
        (body) => body.logs.some((log) => log.event === 'campaign_cancelled'),
      );
      expect(done.state).toBe('cancelled');
      expect(done.processed_rows).toBeLessThan(30);
      expect(done.logs.map((log) => log.event)).toEqual(
        expect.arrayContaining(['campaign_started', 'campaign_paused', 'config_updated', 'campaign_resumed']),
      );
      const resume = await api().post(`/campaign/${id}/resume`);
      expect(resume.status).toBe(409);
      expect(resume.body.detail).toBe("Campaign must be in 'paused' state to resume, current state: cancelled");
    }));
});
