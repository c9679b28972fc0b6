import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { campaignWorkflowId } from '../../workflows/definitions';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { callWorker } from '../helpers/call-worker';
import { useTestServices } from '../helpers/services';
import { terminateAll, uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

/**
 * The deployment's bounds on calls in flight (CAMPAIGN_MAX_CONCURRENCY, ORG_MAX_CALLS_IN_FLIGHT)
 * through the real API, campaign workflow, worker and simulator, with small limits.
 */
const services = useTestServices();
const LIMITS = { CAMPAIGN_MAX_CONCURRENCY: 4, ORG_MAX_CALLS_IN_FLIGHT: 6 };
const LIMIT_DETAIL =
  /^Calls in flight limit reached: .* at most 6 calls at once \(ORG_MAX_CALLS_IN_FLIGHT\); (\d+) are taken/;

let http: Server;
let app: ReturnType<typeof buildTestApp>['app'];
let taskQueue: string;
let baseUrl: string;
const started: number[] = [];

beforeAll(async () => {
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  taskQueue = uniqueTaskQueue('call-limits');
  app = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    {
      TEMPORAL_TASK_QUEUE: taskQueue,
      PUBLIC_BASE_URL: baseUrl,
      SECRETS_KEY: TEST_SECRETS_KEY,
      CAMPAIGN_MAX_CONCURRENCY: String(LIMITS.CAMPAIGN_MAX_CONCURRENCY),
      ORG_MAX_CALLS_IN_FLIGHT: String(LIMITS.ORG_MAX_CALLS_IN_FLIGHT),
    },
  ).app;
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
});

afterAll(async () => {
  await terminateAll(
    services.temporal.client,
    started.map((id) => campaignWorkflowId(id)),
  );
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

/** Calls that talk for ten minutes: every campaign started here stays running until the test ends. */
const longCalls = () => callingOrganization(app.callback(), { ring_seconds: 0, talk_seconds: 600 });

const apiOf = (org: CallingOrganization) => ({
  post: (path: string, body?: object) =>
    request(app.callback()).post(`/api/v1${path}`).set('X-API-Key', org.apiKey).send(body),
  patch: (path: string, body: object) =>
    request(app.callback()).patch(`/api/v1${path}`).set('X-API-Key', org.apiKey).send(body),
});

async function draft(org: CallingOrganization, maxConcurrency: number): Promise<number> {
  const rows = Array.from({ length: 8 }, (_, index) => `+1415${300 + index}0101,Contact ${index}`);
  const csv = ['phone_number,first_name', ...rows].join('\n');
  const upload = await request(app.callback())
    .post('/api/v1/campaign/sources?file_name=contacts.csv')
    .set('X-API-Key', org.apiKey)
    .set('Content-Type', 'text/csv')
    .send(csv);
  expect(upload.status).toBe(201);
  const res = await apiOf(org).post('/campaign/create', {
    name: 'Limited',
    workflow_id: org.agent.id,
    source_type: 'csv',
    source_id: upload.body.source_id,
    max_concurrency: maxConcurrency,
  });
  expect(res.status).toBe(201);
  return res.body.id as number;
}

async function start(org: CallingOrganization, id: number): Promise<request.Response> {
  const res = await apiOf(org).post(`/campaign/${id}/start`);
  if (res.status === 200) started.push(id);
  return res;
}

const stateOf = async (id: number) =>
  (await services.db.dataSource.query<{ state: string }[]>('SELECT state FROM campaigns WHERE id = $1', [id]))[0]
    ?.state;

describe('calls in flight limits', () => {
  it('refuses a max_concurrency above CAMPAIGN_MAX_CONCURRENCY on create and on PATCH (422)', async () => {
    const org = await longCalls();
    const res = await apiOf(org).post('/campaign/create', {
      name: 'Too wide',
      workflow_id: org.agent.id,
      source_type: 'csv',
      source_id: 'src_unused',
      max_concurrency: 5,
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'max_concurrency'], type: 'less_than_equal' }),
    ]);
    expect(res.body.detail[0].msg).toMatch(/less than or equal to 4 .*CAMPAIGN_MAX_CONCURRENCY/);
    const id = await draft(org, 4);
    const patched = await apiOf(org).patch(`/campaign/${id}`, { max_concurrency: 5 });
    expect(patched.status).toBe(422);
    expect(patched.body.detail[0].loc).toEqual(['body', 'max_concurrency']);
  });

  it('starts and resumes campaigns only while the organization’s running ones leave room; other organizations are apart', () =>
    callWorker(services, { taskQueue, baseUrl, identity: 'call-limits' }).then((worker) =>
      worker.runUntil(async () => {
        const org = await longCalls();
        const first = await draft(org, 4);
        const second = await draft(org, 3);
        const third = await draft(org, 2);

        expect((await start(org, first)).status).toBe(200);
        const refused = await start(org, second);
        expect(refused.status).toBe(409);
        expect(refused.body.detail).toMatch(LIMIT_DETAIL);
        expect(refused.body.detail).toMatch(/4 are taken .* max_concurrency is 3/);
        expect(await stateOf(second)).toBe('draft');
        // 4 + 2 fits exactly.
        expect((await start(org, third)).status).toBe(200);

        // A paused campaign holds no room: the second fits once the first is paused, and the first
        // cannot come back while the other two run.
        expect((await apiOf(org).post(`/campaign/${first}/pause`)).status).toBe(200);
        expect((await start(org, second)).status).toBe(200);
        const resume = await apiOf(org).post(`/campaign/${first}/resume`);
        expect(resume.status).toBe(409);
        expect(resume.body.detail).toMatch(/5 are taken .* max_concurrency is 4/);
        expect(await stateOf(first)).toBe('paused');
        // Lowered while paused, it fits again.
        expect((await apiOf(org).patch(`/campaign/${first}`, { max_concurrency: 1 })).status).toBe(200);
        expect((await apiOf(org).post(`/campaign/${first}/resume`)).status).toBe(200);

        // Another organization's limit is its own.
        const other = await longCalls();
        expect((await start(other, await draft(other, 4))).status).toBe(200);
      }),
    ));

  it('lets exactly one of two campaigns started at once take the last room', () =>
    callWorker(services, { taskQueue, baseUrl, identity: 'call-limits-race' }).then((worker) =>
      worker.runUntil(async () => {
        const org = await longCalls();
        const drafts = [await draft(org, 4), await draft(org, 4), await draft(org, 3)];
        const answers = await Promise.all(drafts.map((id) => start(org, id)));
        const statuses = answers.map((res) => res.status).sort();
        expect(statuses).toEqual([200, 409, 409]);
        for (const res of answers.filter((answer) => answer.status === 409)) {
          expect(res.body.detail).toMatch(LIMIT_DETAIL);
        }
        const states = await Promise.all(drafts.map(stateOf));
        expect(states.filter((state) => state === 'running')).toHaveLength(1);
      }),
    ));
});
