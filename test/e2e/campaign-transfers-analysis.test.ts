import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Run } from '../../entities';
import { campaignWorkflowId } from '../../workflows/definitions';
import { createAgent } from '../helpers/agents';
import { buildTestApp } from '../helpers/app';
import { callWorker } from '../helpers/call-worker';
import { callingOrganization, definitionWithTrigger, type CallingOrganization } from '../helpers/calls';
import { createCampaign, insertContactSource, type ContactRow } from '../helpers/campaign-api';
import { FakeLanguageModel } from '../helpers/llm-fake';
import { useTestServices } from '../helpers/services';
import { uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { transferringAgent } from '../helpers/transfer-agent';
import { waitFor } from '../helpers/wait-for';

/**
 * Campaigns whose calls are transferred and analysed, through the API, the campaign and call
 * workflows, a worker, PostgreSQL and the simulator: transfers are reached contacts counted apart,
 * the analysed calls are reported on the campaign, and the campaign counts a call before its analysis.
 */
const services = useTestServices();

/** Simulator destinations: a person answers this one; this one is busy. */
const PERSON = '+14155550999';
const BUSY_DESK = '+14155550486';

const llm = new FakeLanguageModel();
let http: Server;
let baseUrl: string;
let taskQueue: string;
let app: ReturnType<typeof buildTestApp>['app'];
let org: CallingOrganization;

beforeAll(async () => {
  await llm.start();
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  taskQueue = uniqueTaskQueue('campaign-transfers-analysis');
  app = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY },
  ).app;
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  // The callee stays on the line long enough for a busy desk to answer and the agent to carry on.
  org = await callingOrganization(app.callback(), { ring_seconds: 0, talk_seconds: 10 });
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await llm.stop();
});

/** Runs `test` while a worker serves this file's task queue; QA nodes may ask the local fake model. */
async function withWorker<T>(test: () => Promise<T>): Promise<T> {
  const worker = await callWorker(services, {
    taskQueue,
    baseUrl,
    identity: 'e2e-campaign-transfers-analysis',
    webhooks: { allowPrivate: true },
  });
  return worker.runUntil(test);
}

const api = {
  get: (path: string) => request(app.callback()).get(`/api/v1${path}`).set('X-API-Key', org.apiKey),
  post: (path: string) => request(app.callback()).post(`/api/v1${path}`).set('X-API-Key', org.apiKey),
};

interface CampaignBody {
  state: string;
  processed_rows: number;
  failed_rows: number;
  executed_count: number;
  transferred: number;
  analysis: {
    analyzed_calls: number;
    evaluated_calls: number;
    successful_calls: number;
    success_rate: number | null;
    sentiment: Record<string, number>;
    top_tags: { tag: string; calls: number }[];
  };
}

/** Polls GET /campaign/{id} until `done` holds. */
async function campaignWhen(id: number, done: (body: CampaignBody) => boolean): Promise<CampaignBody> {
  let last: unknown;
  return waitFor(
    () => `campaign ${id}: ${JSON.stringify(last)}`,
    async () => {
      const res = await api.get(`/campaign/${id}`);
      expect(res.status).toBe(200);
      last = res.body;
      return done(res.body as CampaignBody) && (res.body as CampaignBody);
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  );
}

/** Creates a campaign over `contacts` with `agentId` and starts it; returns its id. */
async function startCampaign(agentId: number, contacts: ContactRow[]): Promise<number> {
  const sourceId = await insertContactSource(services.db.dataSource, org.owner.user.organization_id, contacts);
  const campaign = await createCampaign(app.callback(), org.owner.token, {
    name: 'Transfers and analysis',
    workflow_id: agentId,
    source_type: 'csv',
    source_id: sourceId,
    max_concurrency: contacts.length,
  });
  expect((await api.post(`/campaign/${campaign.id}/start`)).status).toBe(200);
  return campaign.id;
}

const runsOf = (campaignId: number) =>
  services.db.dataSource.getRepository(Run).find({ where: { campaignId }, order: { id: 'ASC' } });

const qaNode = (data: Record<string, unknown> = {}) => ({
  id: 'qa',
  type: 'qa',
  position: { x: 600, y: 0 },
  data: { name: 'QA', qa_min_call_duration: 0, ...data },
});

describe('a campaign whose calls are transferred and analysed', () => {
  it(
    'counts every third call transferred as reached (no retry), and reports its analysed calls',
    () =>
      withWorker(async () => {
        const agent = await transferringAgent(
          app.callback(),
          org.owner.token,
          { destination_source: 'dynamic', allowed_destinations: [PERSON, BUSY_DESK], ring_timeout_seconds: 5 },
          [
            qaNode({
              success_evaluation: { rubric: 'pass_fail', criteria: 'The caller was put through to a person.' },
            }),
          ],
        );
        // Every third contact's desk answers; the others' is busy, and their conversation carries on.
        const contacts = Array.from({ length: 6 }, (_, index) => ({
          phone_number: `+1415${200 + index}0123`,
          first_name: `Contact ${index + 1}`,
          destination: index % 3 === 2 ? PERSON : BUSY_DESK,
        }));
        const campaignId = await startCampaign(agent.workflowId, contacts);

        const done = await campaignWhen(campaignId, (body) => body.state === 'completed');
        expect(done).toMatchObject({ processed_rows: 6, failed_rows: 0, executed_count: 6, transferred: 2 });
        const runs = await runsOf(campaignId);
        expect(runs.map((run) => run.disposition === 'transferred')).toEqual(
          contacts.map((c) => c.destination === PERSON),
        );
        expect(runs.every((run) => run.gatheredContext.call_status === 'completed')).toBe(true);

        const progress = await api.get(`/campaign/${campaignId}/progress`);
        expect(progress.body).toMatchObject({ transferred: 2, outcomes: { completed: 6 }, pending_retries: 0 });
        const handle = services.temporal.client.workflow.getHandle(campaignWorkflowId(campaignId));
        const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
        expect(currentDetails).toContain('transferred 2');
        expect(currentDetails).toContain('Outcomes: completed 6');

        // Each call is analysed after the campaign counted it: the report follows as analyses land.
        const reported = await campaignWhen(campaignId, (body) => body.analysis.analyzed_calls === 6);
        const analyses = (await runsOf(campaignId)).map(
          (run) =>
            run.annotations as {
              tags: string[];
              analysis: { sentiment: string; success?: { successful: boolean } };
            },
        );
        const evaluated = analyses.filter((annotations) => annotations.analysis.success);
        const successful = evaluated.filter((annotations) => annotations.analysis.success?.successful).length;
        const tagCounts = new Map<string, number>();
        for (const { tags } of analyses) for (const tag of tags) tagCounts.set(tag, (tagCounts.get(tag) ?? 0) + 1);
        const sentiments = (sentiment: string) =>
          analyses.filter((annotations) => annotations.analysis.sentiment === sentiment).length;
        expect(reported.analysis).toEqual({
          analyzed_calls: 6,
          evaluated_calls: 6,
          successful_calls: successful,
          success_rate: Math.round((successful / 6) * 1000) / 1000,
          sentiment: {
            positive: sentiments('positive'),
            neutral: sentiments('neutral'),
            negative: sentiments('negative'),
          },
          top_tags: [...tagCounts]
            .map(([tag, calls]) => ({ tag, calls }))
            .sort((a, b) => b.calls - a.calls || (a.tag < b.tag ? -1 : 1))
            .slice(0, 10),
        });
        expect(analyses.every((annotations) => annotations.analysis.sentiment)).toBe(true);

        // The campaign's workflow ends once its calls' analyses are in; its details sum them.
        await handle.result();
        const topTags = [...tagCounts]
          .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
          .slice(0, 5)
          .map(([tag, calls]) => `${tag} (${calls})`);
        const final = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
        expect(final.currentDetails).toContain(
          `Analysed 6 · success ${Math.round((successful / 6) * 100)}%` +
            ` · sentiment +${sentiments('positive')} / =${sentiments('neutral')} / −${sentiments('negative')}` +
            ` · top tags: ${topTags.length > 0 ? topTags.join(', ') : 'none'}`,
        );
      }),
    180_000,
  );

  it(
    'hears how a call ended before its analysis: the counters show the call while the analysis is held',
    () =>
      withWorker(async () => {
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        llm.reset();
        llm.answer({
          content: JSON.stringify({
            summary: 'The reminder was delivered.',
            tags: [{ tag: 'reminder_delivered', reason: 'the agent read it out' }],
            score: 8,
            overall_sentiment: 'positive',
            fields: { call_summary: 'Reminder delivered.', call_successful: true, user_sentiment: 'positive' },
          }),
          heldUntil: held,
        });
        const base = definitionWithTrigger();
        const agent = await createAgent(app.callback(), org.owner.token, {
          ...base,
          nodes: [
            ...base.nodes,
            qaNode({ qa_use_workflow_llm: false, qa_endpoint: llm.baseUrl, qa_model: 'qa-model' }),
          ],
        });
        const campaignId = await startCampaign(agent.id, [{ phone_number: '+14155550123', first_name: 'Ada' }]);
        try {
          // The model has the analysis request and holds it; the campaign has already counted the call.
          await waitFor('the analysis request', () => llm.received.length === 1, { timeoutMs: 120_000 });
          const counted = await campaignWhen(campaignId, (body) => body.state === 'completed');
          expect(counted.processed_rows).toBe(1);
          expect(counted.analysis.analyzed_calls).toBe(0);
          const [pending] = await runsOf(campaignId);
          expect(pending?.gatheredContext.call_status).toBe('completed');
          expect(pending?.annotations).not.toHaveProperty('analysis');
        } finally {
          release();
        }
        const analysed = await campaignWhen(campaignId, (body) => body.analysis.analyzed_calls === 1);
        expect(analysed.analysis).toMatchObject({
          sentiment: { positive: 1, neutral: 0, negative: 0 },
          top_tags: [{ tag: 'reminder_delivered', calls: 1 }],
        });
        const [run] = await runsOf(campaignId);
        expect(run?.annotations).toMatchObject({ tags: ['reminder_delivered'], qa_qa: { model: 'qa-model' } });
        // The campaign had completed; its workflow still waited for the analysis, and its details show it.
        const handle = services.temporal.client.workflow.getHandle(campaignWorkflowId(campaignId));
        await handle.result();
        const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
        expect(currentDetails).toContain('Analysed 1 · ');
        expect(currentDetails).toContain('sentiment +1 / =0 / −0 · top tags: reminder_delivered (1)');
      }),
    180_000,
  );
});
