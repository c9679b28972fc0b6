import request from 'supertest';
import { o200kCounter } from '../../agent-runtime/token-counter';
import { campaignProgressQuery, campaignWorkflowId } from '../../workflows/definitions';
import {
  CAMPAIGN_WAIT,
  campaignLogs,
  campaignSettings,
  insertCampaign,
  startCampaignWorkflow,
  useCampaignTestFile,
} from '../helpers/campaigns';
import { callWorker } from '../helpers/call-worker';
import type { CallingOrganization } from '../helpers/calls';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { terminateAll, uniqueTaskQueue } from '../helpers/temporal';
import { waitFor } from '../helpers/wait-for';

const { services, taskQueue, bed, withWorker } = useCampaignTestFile('dial-rules');
let org: CallingOrganization;
const started: string[] = [];

beforeAll(async () => {
  org = await bed().organization({ ring_seconds: 0, talk_seconds: 5 });
  // The conversations count tokens with a tokenizer loaded on first use. Jest refuses a `require`
  // between cases, and with cases side by side one may end just as another's conversation starts:
  // load it now.
  o200kCounter();
});
afterAll(async () => {
  await terminateAll(services.temporal.client, started);
});

/**
 * A worker of its own on `queue` (the cases side by side share the file's worker, on the file's
 * queue, with the default rules: the do-not-call list only).
 */
const worker = (queue: string, dialRules = { doNotCall: true, perDay: 0, perWeek: 0 }) =>
  callWorker(services, { taskQueue: queue, baseUrl: bed().baseUrl, identity: 'dial-rules-tests', dialRules });

/** The app with frequency caps on (the test bed's has none). */
const cappedApi = (perDay: number) =>
  services.server({
    TEMPORAL_TASK_QUEUE: taskQueue,
    PUBLIC_BASE_URL: bed().baseUrl,
    SECRETS_KEY: TEST_SECRETS_KEY,
    DIAL_CAP_PER_DAY: String(perDay),
    DIAL_CAP_PER_WEEK: '0',
  });

/** The app starting its calls on `queue`. */
const apiOn = (queue: string) =>
  services.server({ TEMPORAL_TASK_QUEUE: queue, PUBLIC_BASE_URL: bed().baseUrl, SECRETS_KEY: TEST_SECRETS_KEY });

const listNumber = (phoneNumber: string) =>
  request(bed().baseUrl)
    .post('/api/v1/organizations/do-not-call')
    .set('X-API-Key', org.apiKey)
    .send({ phone_number: phoneNumber, reason: 'test' });
const call = (phoneNumber: string, server: Parameters<typeof request>[0] = bed().baseUrl) =>
  request(server)
    .post(`/api/v1/public/agent/${org.triggerPath}`)
    .set('X-API-Key', org.apiKey)
    .send({ phone_number: phoneNumber, initial_context: { first_name: 'Ada' } });

const dialsTo = async (phoneNumber: string): Promise<number> => {
  const [row] = await services.db.dataSource.query<{ count: number }[]>(
    `SELECT count(*)::int AS count FROM simulator_calls WHERE to_address = $1`,
    [phoneNumber],
  );
  return row?.count ?? 0;
};
const runOf = async (runId: number) => {
  const [row] = await services.db.dataSource.query<
    { is_completed: boolean; gathered_context: Record<string, unknown> }[]
  >(`SELECT is_completed, gathered_context FROM runs WHERE id = $1`, [runId]);
  return row;
};
const runEnded = (runId: number) =>
  waitFor('the run to end', async () => (await runOf(runId))?.is_completed, CAMPAIGN_WAIT);
const counters = async (campaignId: number) => {
  const [row] = await services.db.dataSource.query<
    {
      processed_rows: number;
      failed_rows: number;
      executed_count: number;
      dnc_skipped_count: number;
      frequency_capped_count: number;
      state: string;
    }[]
  >(
    `SELECT processed_rows, failed_rows, executed_count, dnc_skipped_count, frequency_capped_count, state
       FROM campaigns WHERE id = $1`,
    [campaignId],
  );
  return row;
};

// The cases of each block run side by side (the calls talk for 5 s), each on its own numbers.
describe('do-not-call at dial time', () => {
  it.concurrent('a campaign never dials a listed contact: it counts it as dnc_skipped and logs it', async () => {
    expect((await listNumber('+1 415 201 0002')).status).toBe(201);
    const contacts = ['+14152010001', '+14152010002', '+14152010003'].map((phoneNumber) => ({ phoneNumber }));
    const { campaignId } = await insertCampaign(services.db.dataSource, org, contacts, campaignSettings());
    const handle = await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
    started.push(handle.workflowId);
    const progress = await withWorker(async () => {
      await handle.result();
      return handle.query(campaignProgressQuery);
    });
    expect(await dialsTo('+14152010002')).toBe(0);
    expect(await dialsTo('+14152010001')).toBe(1);
    expect(await counters(campaignId)).toMatchObject({
      state: 'completed',
      processed_rows: 3,
      failed_rows: 1,
      executed_count: 2,
      dnc_skipped_count: 1,
    });
    expect(progress).toMatchObject({ dnc_skipped: 1, processed_rows: 3, outcomes: { completed: 2 } });
    const logs = await campaignLogs(services.db.dataSource, campaignId);
    expect(logs.filter((log) => log.event === 'dnc_skipped')).toHaveLength(1);

    const api = await request(bed().baseUrl)
      .get(`/api/v1/campaign/${campaignId}/progress`)
      .set('X-API-Key', org.apiKey);
    expect(api.body).toMatchObject({ dnc_skipped: 1, frequency_capped: 0, outcomes: { completed: 2 } });
  });

  it.concurrent('a single call to a listed number answers 422 and places nothing', async () => {
    await listNumber('+14152020001');
    const res = await call('+14152020001');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: "+14152020001 is on this organization's do-not-call list; the call was not placed",
    });
    expect(await dialsTo('+14152020001')).toBe(0);
  });

  it.concurrent(
    'a single call to another form of a listed number is refused: the list and the call compare one form',
    async () => {
      expect((await listNumber('+442079460958')).status).toBe(201);
      for (const form of ['+4402079460958', '+44 (0)20 7946 0958']) {
        const res = await call(form);
        expect({ form, status: res.status, body: res.body }).toEqual({
          form,
          status: 422,
          body: { detail: "+442079460958 is on this organization's do-not-call list; the call was not placed" },
        });
      }
      expect(await dialsTo('+442079460958')).toBe(0);
      expect(await dialsTo('+4402079460958')).toBe(0);
    },
  );

  it.concurrent(
    'an opt-out from a call typed with a national prefix blocks the campaign contact of the canonical number',
    async () => {
      const res = await call('+4402079460688');
      expect(res.status).toBe(200);
      const runId = (res.body as { workflow_run_id: number }).workflow_run_id;
      await withWorker(() => runEnded(runId));
      expect(await dialsTo('+442079460688')).toBe(1);
      const [listed] = await services.db.dataSource.query<{ phone_number: string; source: string }[]>(
        `SELECT phone_number, source FROM do_not_call_numbers WHERE run_id = $1`,
        [runId],
      );
      expect(listed).toEqual({ phone_number: '+442079460688', source: 'opt_out' });

      const { campaignId } = await insertCampaign(
        services.db.dataSource,
        org,
        [{ phoneNumber: '+442079460688' }],
        campaignSettings(),
      );
      const handle = await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
      started.push(handle.workflowId);
      await withWorker(() => handle.result());
      expect(await counters(campaignId)).toMatchObject({ state: 'completed', dnc_skipped_count: 1, executed_count: 0 });
      expect(await dialsTo('+442079460688')).toBe(1);
    },
  );

  it.concurrent(
    "the call workflow's own check refuses a number listed after the API let the call through",
    async () => {
      // Its own queue, polled only once the number is listed.
      const queue = uniqueTaskQueue('dial-rules-late-listing');
      const res = await call('+14152030001', apiOn(queue));
      expect(res.status).toBe(200);
      await listNumber('+14152030001');
      const runId = (res.body as { workflow_run_id: number }).workflow_run_id;
      await (await worker(queue)).runUntil(() => runEnded(runId));
      expect((await runOf(runId))?.gathered_context).toMatchObject({
        call_status: 'canceled',
        not_dialed: 'do_not_call',
      });
      expect(await dialsTo('+14152030001')).toBe(0);
    },
  );

  it.concurrent(
    'an opt-out in a simulated conversation puts the number on the list, with the run as its source',
    async () => {
      const res = await call('+14152040688');
      expect(res.status).toBe(200);
      const runId = (res.body as { workflow_run_id: number }).workflow_run_id;
      await withWorker(() => runEnded(runId));
      const list = await request(bed().baseUrl)
        .get(`/api/v1/organizations/do-not-call?search=${encodeURIComponent('+1 415 204 0688')}`)
        .set('X-API-Key', org.apiKey);
      expect((list.body as { numbers: unknown[] }).numbers).toEqual([
        expect.objectContaining({ phone_number: '+14152040688', source: 'opt_out', run_id: runId }),
      ]);
      expect((await call('+14152040688')).status).toBe(422);
    },
  );
});

describe('frequency caps across campaigns', () => {
  it.concurrent(
    'two campaigns over the same numbers dial each number once under a cap of one a day, and put the rest off',
    async () => {
      // Its own queue: its worker's cap of one a day must not meet the other cases' calls.
      const queue = uniqueTaskQueue('dial-rules-capped');
      const numbers = ['+14152050001', '+14152050002', '+14152050003', '+14152050004'];
      const contacts = numbers.map((phoneNumber) => ({ phoneNumber }));
      const first = await insertCampaign(
        services.db.dataSource,
        org,
        contacts,
        campaignSettings({ max_concurrency: 4 }),
      );
      const second = await insertCampaign(
        services.db.dataSource,
        org,
        contacts,
        campaignSettings({ max_concurrency: 4 }),
      );
      await (
        await worker(queue, { doNotCall: true, perDay: 1, perWeek: 0 })
      ).runUntil(async () => {
        const handles = await Promise.all(
          [first, second].map(({ campaignId }) =>
            startCampaignWorkflow(services.temporal.client, queue, org, campaignId),
          ),
        );
        started.push(...handles.map((handle) => handle.workflowId));
        // Every contact is dialed by one campaign and put off by the other.
        await waitFor(
          'every contact to be dialed or put off',
          async () => {
            const [a, b] = await Promise.all([counters(first.campaignId), counters(second.campaignId)]);
            return (
              (a?.processed_rows ?? 0) + (b?.processed_rows ?? 0) === numbers.length &&
              (a?.frequency_capped_count ?? 0) + (b?.frequency_capped_count ?? 0) === numbers.length
            );
          },
          CAMPAIGN_WAIT,
        );
        const progress = await handles[1]?.query(campaignProgressQuery);
        expect(progress?.frequency_capped).toBe((await counters(second.campaignId))?.frequency_capped_count);
      });
      for (const phoneNumber of numbers) expect(await dialsTo(phoneNumber)).toBe(1);
      const deferred = await services.db.dataSource.query<{ hours: number }[]>(
        `SELECT extract(epoch FROM scheduled_for - now()) / 3600 AS hours FROM campaign_attempts
        WHERE campaign_id = ANY($1) AND status = 'queued'`,
        [[first.campaignId, second.campaignId]],
      );
      expect(deferred).toHaveLength(numbers.length);
      for (const { hours } of deferred) expect(Number(hours)).toBeGreaterThan(23);
      const logs = [
        ...(await campaignLogs(services.db.dataSource, first.campaignId)),
        ...(await campaignLogs(services.db.dataSource, second.campaignId)),
      ];
      expect(logs.filter((log) => log.event === 'frequency_capped')).toHaveLength(numbers.length);
      await terminateAll(
        services.temporal.client,
        [first, second].map(({ campaignId }) => campaignWorkflowId(campaignId)),
      );
    },
  );

  it.concurrent('counts every form of a number against its cap as one number', async () => {
    const api = cappedApi(1);
    const first = await call('+44 20 7946 0959', api);
    expect(first.status).toBe(200);
    const runId = (first.body as { workflow_run_id: number }).workflow_run_id;
    started.push(`call-${runId}`);
    const [run] = await services.db.dataSource.query<{ called_number: string; initial_context: object }[]>(
      `SELECT called_number, initial_context FROM runs WHERE id = $1`,
      [runId],
    );
    expect(run).toMatchObject({ called_number: '+442079460959', initial_context: { called_number: '+442079460959' } });
    const second = await call('+4402079460959', api);
    expect(second.status).toBe(429);
    expect((second.body as { detail: string }).detail).toMatch(/^\+442079460959 has reached the frequency cap/);
  });

  it.concurrent('a single call over the cap answers 429 with Retry-After', async () => {
    const api = cappedApi(1);
    const first = await call('+14152060001', api);
    expect(first.status).toBe(200);
    started.push(`call-${(first.body as { workflow_run_id: number }).workflow_run_id}`);
    const second = await call('+14152060001', api);
    expect(second.status).toBe(429);
    expect((second.body as { detail: string }).detail).toMatch(
      /^\+14152060001 has reached the frequency cap \(1 calls per 24 hours\); it may be called again at \d{4}-/,
    );
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(86_000);
  });
});
