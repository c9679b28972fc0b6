import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from '@temporalio/worker';
import request from 'supertest';
import { createActivities } from '../../activities';
import type { WebhookLogEntry } from '../../domain/webhooks/post-call-delivery';
import { converse } from '../../agent-runtime';
import { Run } from '../../entities';
import { Secrets } from '../../telephony/secrets';
import { callWorkflowId } from '../../workflows/definitions';
import { createAgent, type CreatedAgent } from '../helpers/agents';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, definitionWithTrigger, triggerPathOf, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { testDataConverter, testWorkflowBundle, uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));

const TOKEN = 'crm_live_5e1f9a0c7b3d4e2f';
const HEADER_SECRET = 'shp_8d0c2b1a9e7f';

/** The customer's endpoint: records the headers of every request. */
const received: { path: string; headers: IncomingHttpHeaders }[] = [];
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received.push({ path: req.url ?? '', headers: req.headers });
    res.writeHead(200).end('ok');
  });
});

let http: Server;
let app: ReturnType<typeof buildTestApp>['app'];
let org: CallingOrganization;
let taskQueue: string;
let receiverUrl: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  taskQueue = uniqueTaskQueue('webhook-credentials');
  app = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY },
  ).app;
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  org = await callingOrganization(app.callback(), { ring_seconds: 0, talk_seconds: 1 });
});

afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const createCredential = async (body: object): Promise<string> => {
  const res = await request(app.callback())
    .post('/api/v1/credentials')
    .auth(org.owner.token, { type: 'bearer' })
    .send(body);
  expect(res.status).toBe(201);
  return res.body.uuid as string;
};

const webhookNode = (id: string, data: Record<string, unknown>) => ({
  id,
  type: 'webhook',
  position: { x: 400, y: 0 },
  data: { name: `Webhook ${id}`, endpoint_url: `${receiverUrl}/${id}`, ...data },
});

/** A worker with the call activities, webhooks allowed to reach the local receiver. */
const createWorker = () =>
  Worker.create({
    connection: services.temporal.nativeConnection,
    taskQueue,
    workflowBundle: testWorkflowBundle(),
    dataConverter: testDataConverter,
    activities: createActivities({
      dataSource: services.db.dataSource,
      workerIdentity: 'e2e-webhook-credentials',
      calls: {
        secrets,
        settings: { publicBaseUrl: 'http://127.0.0.1', pricePerMinuteUsd: 0, pricePer1kTokensUsd: 0 },
        converse,
        temporal: services.temporal.client,
      },
      webhooks: { allowPrivate: true },
    }),
  });

/** Places a call with the agent; its workflow runs once a worker polls. */
const placeCall = async (agent: CreatedAgent): Promise<number> => {
  const res = await request(app.callback())
    .post(`/api/v1/public/agent/${triggerPathOf(agent)}`)
    .set('X-API-Key', org.apiKey)
    .send({ phone_number: '+14155550123', initial_context: { first_name: 'Ada' } });
  expect(res.status).toBe(200);
  return res.body.workflow_run_id as number;
};

const finished = async (runId: number): Promise<Run> => {
  await services.temporal.client.workflow.getHandle(callWorkflowId(runId)).result();
  return services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
};

it('sends each webhook node its credential’s headers, read at delivery time', async () => {
  const bearer = await createCredential({
    name: 'CRM',
    credential_type: 'bearer_token',
    credential_data: { token: TOKEN },
  });
  const custom = await createCredential({
    name: 'Shop',
    credential_type: 'custom_header',
    credential_data: { header_name: 'X-Shop-Token', header_value: HEADER_SECRET },
  });
  const basic = await createCredential({
    name: 'Ledger',
    credential_type: 'basic_auth',
    credential_data: { username: 'switchboard', password: 'correct-horse' },
  });
  const base = definitionWithTrigger();
  const agent = await createAgent(app.callback(), org.owner.token, {
    ...base,
    nodes: [
      ...base.nodes,
      webhookNode('bearer', {
        credential_uuid: bearer,
        custom_headers: [{ key: 'X-Customer', value: 'for {{first_name}}' }],
      }),
      webhookNode('custom', { credential_uuid: custom }),
      webhookNode('basic', { credential_uuid: basic, http_method: 'GET' }),
    ],
  });

  const worker = await createWorker();
  const run = await worker.runUntil(async () => finished(await placeCall(agent)));

  const headersOf = (path: string) => received.find((request) => request.path === path)?.headers ?? {};
  expect(headersOf('/bearer').authorization).toBe(`Bearer ${TOKEN}`);
  // A custom header stored sealed is opened and rendered for the request.
  expect(headersOf('/bearer')['x-customer']).toBe('for Ada');
  expect(headersOf('/custom')['x-shop-token']).toBe(HEADER_SECRET);
  expect(headersOf('/basic').authorization).toBe(
    `Basic ${Buffer.from('switchboard:correct-horse').toString('base64')}`,
  );
  const webhooks = run.logs.webhooks as Record<string, WebhookLogEntry>;
  for (const id of ['bearer', 'custom', 'basic']) expect(webhooks[id]).toMatchObject({ status: 'delivered' });

  // No secret reaches the run's logs or the call workflow's history.
  const history = await services.temporal.client.workflow.getHandle(callWorkflowId(run.id)).fetchHistory();
  for (const text of [JSON.stringify(run.logs), JSON.stringify(history)]) {
    for (const secret of [TOKEN, HEADER_SECRET, 'correct-horse']) expect(text).not.toContain(secret);
  }
}, 90_000);

it('refuses the delivery of a call whose version names a credential deleted since, sending nothing', async () => {
  const doomed = await createCredential({
    name: 'Doomed',
    credential_type: 'bearer_token',
    credential_data: { token: TOKEN },
  });
  const base = definitionWithTrigger();
  const agent = await createAgent(app.callback(), org.owner.token, {
    ...base,
    nodes: [...base.nodes, webhookNode('doomed', { credential_uuid: doomed })],
  });
  // The call is placed with this version; its workflow waits for a worker.
  const runId = await placeCall(agent);
  const owner = (method: 'put' | 'delete', path: string) =>
    request(app.callback())[method](path).auth(org.owner.token, { type: 'bearer' });
  expect((await owner('put', `/api/v1/workflow/${agent.id}`).send({ workflow_definition: base })).status).toBe(200);
  expect((await owner('delete', `/api/v1/credentials/${doomed}`)).status).toBe(200);

  const worker = await createWorker();
  const run = await worker.runUntil(finished(runId));
  expect(run.isCompleted).toBe(true);
  expect(received.filter((request) => request.path === '/doomed')).toHaveLength(0);
  expect((run.logs.webhooks as Record<string, WebhookLogEntry>).doomed).toMatchObject({
    status: 'refused',
    error: `Credential ${doomed} no longer exists in the organization`,
  });
}, 90_000);
