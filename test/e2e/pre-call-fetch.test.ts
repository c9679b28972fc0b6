import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { verifyV2 } from '../../domain/webhooks/signature-v2';
import { PRE_CALL_FETCH_ATTEMPTS } from '../../domain/calls/pre-call-fetch';
import { Run } from '../../entities';
import { callWorkflowId } from '../../workflows/definitions';
import { createAgent, sampleDefinition } from '../helpers/agents';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, triggerPathOf, type CallingOrganization } from '../helpers/calls';
import { callWorker } from '../helpers/call-worker';
import { useTestServices } from '../helpers/services';
import { uniqueTaskQueue } from '../helpers/temporal';
import { createPhoneNumber, TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();

const TOKEN = 'tok_crm_5f0c9a7e21d4b3aa';

interface Received {
  path: string;
  url: string;
  method: string;
  headers: Record<string, string | undefined>;
  body: string;
  /** The run's provider call id when the request came: null means it came before the dial. */
  dialedBefore: string | null;
}

/** The customer's CRM: answers the caller's account, fails, or hangs, by path. */
const received: Received[] = [];
let flakyFailures = 0;
let crm: Server;
let crmPort: number;

beforeAll(async () => {
  crm = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString();
        const path = req.url ?? '';
        const runId = (JSON.parse(body || '{}') as { run_id?: number }).run_id;
        const [row] = await services.db.dataSource.query<{ provider_call_id: string | null }[]>(
          'SELECT provider_call_id FROM runs WHERE id = $1',
          [runId ?? 0],
        );
        received.push({
          path,
          url: `http://127.0.0.1:${crmPort}${path}`,
          method: req.method ?? '',
          headers: Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)])),
          body,
          dialedBefore: row?.provider_call_id ?? null,
        });
        const json = (status: number, value: unknown) =>
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
        if (path === '/account') json(200, { account_tier: 'gold', balance: 42.5, direction: 'sideways' });
        else if (path === '/flaky' && flakyFailures++ === 0) json(503, { error: 'busy' });
        else if (path === '/flaky') json(200, { account_tier: 'silver' });
        else if (path === '/down') json(500, { error: 'down' });
        else if (path === '/text') res.writeHead(200, { 'content-type': 'text/plain' }).end('gold');
        else if (path === '/hang') return;
        else json(404, { error: 'no such path' });
      })();
    });
  });
  await new Promise<void>((resolve) => crm.listen(0, '127.0.0.1', resolve));
  crmPort = (crm.address() as AddressInfo).port;
});
afterAll(async () => {
  crm.closeAllConnections();
  await new Promise<void>((resolve) => crm.close(() => resolve()));
});

let http: Server;
let baseUrl: string;
let app: ReturnType<typeof buildTestApp>['app'];
let org: CallingOrganization;
let taskQueue: string;
let signingSecret: string;
let credentialUuid: string;

beforeAll(async () => {
  taskQueue = uniqueTaskQueue('pre-call-fetch');
  // The simulator reports the call's status to the API, as a provider does.
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  app = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY },
  ).app;
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  org = await callingOrganization(app.callback(), { ring_seconds: 0, talk_seconds: 1 });
  const as = (path: string) => request(app.callback()).post(path).auth(org.owner.token, { type: 'bearer' });
  signingSecret = (await as('/api/v1/organizations/webhook-signing-secret/rotate').send({})).body.secret as string;
  const credential = await as('/api/v1/credentials').send({
    name: 'CRM',
    credential_type: 'api_key',
    credential_data: { header_name: 'X-Api-Key', api_key: TOKEN },
  });
  credentialUuid = credential.body.uuid as string;
}, 60_000);
afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

/** An agent whose start node fetches from the CRM's `path` (`mode`), greeting with what it brought. */
async function agentFetching(path: string, mode = 'always') {
  const definition = sampleDefinition('Hello {{first_name}}, your tier is {{account_tier | unknown}}.');
  const [start, ...rest] = definition.nodes;
  return createAgent(app.callback(), org.owner.token, {
    ...definition,
    nodes: [
      {
        ...start,
        data: {
          ...start?.data,
          pre_call_fetch_mode: mode,
          pre_call_fetch_url: `http://127.0.0.1:${crmPort}${path}`,
          pre_call_fetch_credential_uuid: credentialUuid,
        },
      },
      ...rest,
      { id: 'api', type: 'trigger', position: { x: 200, y: 0 }, data: { name: 'API trigger' } },
    ],
  });
}

/** Calls through the agent and waits for its call workflow; the completed run. */
async function callThrough(agent: Awaited<ReturnType<typeof agentFetching>>): Promise<Run> {
  const res = await request(app.callback())
    .post(`/api/v1/public/agent/${triggerPathOf(agent)}`)
    .set('X-API-Key', org.apiKey)
    .send({ phone_number: '+14155550123', initial_context: { first_name: 'Ada', account_tier: 'bronze' } });
  expect(res.status).toBe(200);
  const runId = res.body.workflow_run_id as number;
  await services.temporal.client.workflow.getHandle(callWorkflowId(runId)).result();
  return services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
}

const greeting = (run: Run): string =>
  ((run.logs.transcript ?? []) as { role: string; text: string }[]).find((line) => line.role === 'assistant')?.text ??
  '';

const to = (path: string) => received.filter((entry) => entry.path === path);

describe('pre-call fetch (private addresses allowed, as in development)', () => {
  const runs: Record<string, Run> = {};

  beforeAll(async () => {
    const worker = await callWorker(services, {
      taskQueue,
      baseUrl,
      identity: 'pre-call-fetch',
      allowPrivateWebhooks: true,
    });
    const scenarios = ['/account', '/flaky', '/down', '/text', '/hang', 'inbound-only'] as const;
    const agents = await Promise.all(
      scenarios.map((scenario) =>
        scenario === 'inbound-only' ? agentFetching('/account', 'inbound') : agentFetching(scenario),
      ),
    );
    await worker.runUntil(async () => {
      const done = await Promise.all(agents.map((agent) => callThrough(agent)));
      scenarios.forEach((scenario, index) => (runs[scenario] = done[index] as Run));
    });
  }, 120_000);

  it('merges the answer into initial_context before the dial, and the conversation uses it', () => {
    const run = runs['/account'] as Run;
    expect(run.initialContext).toMatchObject({
      first_name: 'Ada',
      account_tier: 'gold',
      balance: 42.5,
      // The call's own keys are not the endpoint's to change.
      direction: 'outbound',
      called_number: '+14155550123',
    });
    expect(greeting(run)).toBe('Hello Ada, your tier is gold.');
    expect(run.logs.pre_call_fetch).toMatchObject({
      status: 'ok',
      status_code: 200,
      attempts: 1,
      merged_keys: ['account_tier', 'balance'],
    });
    expect(run.gatheredContext.call_status).toBe('completed');
  });

  it('sends the call, the credential, an idempotency key and a v2 signature', () => {
    // Once, or again under the same key when a workflow task that ran it is retried (local activities run at least once).
    const [delivery, ...again] = to('/account');
    expect(delivery?.dialedBefore).toBeNull();
    for (const repeat of again) expect(repeat.headers['idempotency-key']).toBe(delivery?.headers['idempotency-key']);
    expect(delivery?.method).toBe('POST');
    const runId = (runs['/account'] as Run).id;
    expect(JSON.parse(delivery?.body ?? '')).toEqual({
      run_id: runId,
      direction: 'outbound',
      called_number: '+14155550123',
      caller_number: '+14155550100',
      initial_context: expect.objectContaining({ first_name: 'Ada', account_tier: 'bronze' }),
    });
    expect(delivery?.headers['x-api-key']).toBe(TOKEN);
    expect(delivery?.headers['idempotency-key']).toBe(`run-${runId}-pre-call-fetch`);
    expect(delivery?.headers['webhook-id']).toBe(`run-${runId}-pre-call-fetch`);
    expect(verifyV2(Buffer.from(signingSecret, 'utf8'), delivery as Received)).toBe(true);
  });

  it('tries again after a 5xx answer, under the same idempotency key', () => {
    const deliveries = to('/flaky');
    expect(deliveries.length).toBeGreaterThanOrEqual(2);
    expect(new Set(deliveries.map((delivery) => delivery.headers['idempotency-key'])).size).toBe(1);
    const run = runs['/flaky'] as Run;
    expect(run.logs.pre_call_fetch).toMatchObject({ status: 'ok' });
    expect(greeting(run)).toBe('Hello Ada, your tier is silver.');
  });

  it('goes on without it when the endpoint keeps failing, answers no JSON object or hangs, and says why', () => {
    const down = runs['/down'] as Run;
    expect(to('/down').length).toBeGreaterThanOrEqual(PRE_CALL_FETCH_ATTEMPTS);
    expect(down.logs.pre_call_fetch).toMatchObject({
      status: 'failed',
      status_code: 500,
      attempts: PRE_CALL_FETCH_ATTEMPTS,
      error: 'the endpoint answered 500',
    });
    const text = runs['/text'] as Run;
    expect(to('/text').length).toBeGreaterThanOrEqual(1);
    expect(text.logs.pre_call_fetch).toMatchObject({ status: 'failed', attempts: 1, error: 'the answer is not JSON' });
    const hang = runs['/hang'] as Run;
    expect(hang.logs.pre_call_fetch).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/no (complete )?answer within/),
    });
    expect((hang.logs.pre_call_fetch as { duration_ms: number }).duration_ms).toBeLessThan(20_000);
    for (const run of [down, text, hang]) {
      expect(run.gatheredContext.call_status).toBe('completed');
      expect(run.initialContext.account_tier).toBe('bronze');
      expect(greeting(run)).toBe('Hello Ada, your tier is bronze.');
    }
  });

  it('fetches only for the directions the agent asks for', () => {
    const run = runs['inbound-only'] as Run;
    expect(run.logs.pre_call_fetch).toBeUndefined();
    expect(greeting(run)).toBe('Hello Ada, your tier is bronze.');
  });

  it('never puts the credential on the run', () => {
    for (const run of Object.values(runs)) expect(JSON.stringify(run)).not.toContain(TOKEN);
  });
});

describe('pre-call fetch on an inbound call', () => {
  it('asks once the call is answered, before the agent speaks', async () => {
    const agent = await agentFetching('/account', 'inbound');
    const number = '+14155550177';
    await createPhoneNumber(app.callback(), org.owner.token, org.configuration.id, {
      address: number,
      inbound_workflow_id: agent.id,
    });
    const worker = await callWorker(services, { taskQueue, baseUrl, identity: 'inbound', allowPrivateWebhooks: true });
    const before = to('/account').length;
    const run = await worker.runUntil(async () => {
      const res = await request(app.callback())
        .post('/api/v1/telephony/simulator/ring')
        .set('X-API-Key', org.apiKey)
        .send({ to: number, from: '+14155550199' });
      expect(res.status).toBe(200);
      const runId = res.body.workflow_run_id as number;
      await services.temporal.client.workflow.getHandle(callWorkflowId(runId)).result();
      return services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
    });
    const deliveries = to('/account').slice(before);
    expect(deliveries.length).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(deliveries[0]?.body ?? '')).toMatchObject({
      run_id: run.id,
      direction: 'inbound',
      called_number: number,
      caller_number: '+14155550199',
    });
    expect(run.logs.pre_call_fetch).toMatchObject({ status: 'ok', attempts: 1 });
    expect(run.initialContext).toMatchObject({ account_tier: 'gold', direction: 'inbound' });
    expect(greeting(run)).toContain('your tier is gold.');
  }, 60_000);
});

describe('pre-call fetch (private addresses refused, as in production)', () => {
  it('refuses a loopback endpoint without sending anything, and the call goes on', async () => {
    const worker = await callWorker(services, { taskQueue, baseUrl, identity: 'guarded' });
    const agent = await agentFetching('/account');
    const before = to('/account').length;
    const run = await worker.runUntil(() => callThrough(agent));
    expect(to('/account')).toHaveLength(before);
    expect(run.logs.pre_call_fetch).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: expect.stringMatching(/^refused: .*private or reserved/),
    });
    expect(run.gatheredContext.call_status).toBe('completed');
  }, 60_000);
});

describe('saving an agent that fetches before its calls', () => {
  it('needs a URL for any mode but disabled (422 at the start node)', async () => {
    const definition = sampleDefinition();
    const [start, ...rest] = definition.nodes;
    const res = await request(app.callback())
      .post('/api/v1/workflow/create/definition')
      .auth(org.owner.token, { type: 'bearer' })
      .send({
        name: 'No URL',
        workflow_definition: {
          ...definition,
          nodes: [{ ...start, data: { ...start?.data, pre_call_fetch_mode: 'always' } }, ...rest],
        },
      });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.detail)).toContain('pre_call_fetch_url');
  });
});
