import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { Run } from '../../entities';
import { Run as RunEntity } from '../../entities';
import { Secrets } from '../../telephony/secrets';
import { simulatorSignature } from '../../telephony/providers/simulator/webhook';
import { callWorkflowId } from '../../workflows/definitions';
import { AgentIdAttribute } from '../../workflows/search-attributes';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { callWorker } from '../helpers/call-worker';
import { useTestServices } from '../helpers/services';
import { uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));

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
  taskQueue = uniqueTaskQueue('calls');
  app = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    {
      TEMPORAL_TASK_QUEUE: taskQueue,
      PUBLIC_BASE_URL: baseUrl,
      SECRETS_KEY: TEST_SECRETS_KEY,
      PRICE_PER_MINUTE_USD: '0.06',
      PRICE_PER_1K_TOKENS_USD: '0.002',
    },
  ).app;
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  org = await callingOrganization(app.callback(), { ring_seconds: 0, talk_seconds: 1 });
});

afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

const createWorker = () =>
  callWorker(services, {
    taskQueue,
    baseUrl,
    identity: 'e2e-calls',
    prices: { perMinuteUsd: 0.06, per1kTokensUsd: 0.002 },
  });

const placeCall = async (phoneNumber: string): Promise<number> => {
  const res = await request(app.callback())
    .post(`/api/v1/public/agent/${org.triggerPath}`)
    .set('X-API-Key', org.apiKey)
    .send({ phone_number: phoneNumber, initial_context: { first_name: 'Ada' } });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'initiated', workflow_run_name: `call-${res.body.workflow_run_id}` });
  return res.body.workflow_run_id as number;
};

const runRow = (id: number): Promise<Run> => services.db.dataSource.getRepository(RunEntity).findOneByOrFail({ id });

describe('calls through the API, Temporal, a worker and the simulator', () => {
  const outcomes: [string, string][] = [
    ['+14155550486', 'busy'],
    ['+14155550408', 'no-answer'],
    ['+14155550600', 'voicemail'],
    ['+14155550503', 'failed'],
    ['+14155550123', 'completed'],
  ];
  const runIds = new Map<string, number>();

  it('ends each magic number with its call_status, exactly once', async () => {
    const worker = await createWorker();
    await worker.runUntil(async () => {
      for (const [number] of outcomes) runIds.set(number, await placeCall(number));
      await Promise.all(
        [...runIds.values()].map((id) => services.temporal.client.workflow.getHandle(callWorkflowId(id)).result()),
      );
    });
    for (const [number, status] of outcomes) {
      const run = await runRow(runIds.get(number) ?? 0);
      expect({ number, status: run.gatheredContext.call_status, completed: run.isCompleted }).toEqual({
        number,
        status,
        completed: true,
      });
      expect(run.state).toBe('completed');
      if (status !== 'completed') expect(run.gatheredContext.mapped_call_disposition).toBe(status);
    }
  });

  it('gives an answered call a transcript, a disposition, tokens and cost', async () => {
    const runId = runIds.get('+14155550123') ?? 0;
    const run = await runRow(runId);
    expect(run.callDurationSeconds).toBe(1);
    expect(run.platformTokenUsage).toBeGreaterThan(0);
    expect(run.chargeUsd).toBeGreaterThan(0);
    expect(run.disposition).toEqual(expect.any(String));
    expect(run.gatheredContext.mapped_call_disposition).toBe(run.disposition);
    expect(run.costInfo).toMatchObject({ call_duration_seconds: 1, platform_token_usage: run.platformTokenUsage });
    expect(run.initialContext).toMatchObject({
      first_name: 'Ada',
      called_number: '+14155550123',
      caller_number: '+14155550100',
      direction: 'outbound',
      provider: 'simulator',
    });
    expect(run.transcriptUrl).toBe(`/api/v1/workflow/${org.agent.id}/runs/${runId}/transcript`);

    const transcript = await request(app.callback())
      .get(run.transcriptUrl ?? '')
      .set('X-API-Key', org.apiKey);
    expect(transcript.status).toBe(200);
    expect(transcript.type).toBe('text/plain');
    expect(transcript.text).toMatch(/^\[\d{4}-\d\d-\d\dT[^\]]+\] assistant: .*Ada/);

    const description = await services.temporal.client.workflow.getHandle(callWorkflowId(runId)).describe();
    expect(description.memo).toEqual({ run_id: runId });
    expect(description.typedSearchAttributes.get(AgentIdAttribute)).toBe(org.agent.id);
  });

  it('lists the calls in the agent runs and the usage report', async () => {
    const res = await request(app.callback())
      .get(`/api/v1/workflow/${org.agent.id}/runs`)
      .auth(org.owner.token, { type: 'bearer' });
    expect(res.status).toBe(200);
    const ids = (res.body.runs as { id: number }[]).map((run) => run.id);
    expect(ids.sort()).toEqual([...runIds.values()].sort());

    const usage = await request(app.callback())
      .get('/api/v1/organizations/usage/runs')
      .auth(org.owner.token, { type: 'bearer' });
    expect(usage.status).toBe(200);
    expect(usage.body.total_count).toBe(runIds.size);
    const answered = (usage.body.runs as { id: number; charge_usd: number; call_duration_seconds: number }[]).find(
      (run) => run.id === runIds.get('+14155550123'),
    );
    expect(answered).toMatchObject({ call_duration_seconds: 1 });
    expect(answered?.charge_usd).toBeGreaterThan(0);
  });

  it('ignores a repeated status webhook after the call ended', async () => {
    const runId = runIds.get('+14155550486') ?? 0;
    const before = await runRow(runId);
    const body = JSON.stringify({ call_id: before.providerCallId, status: 'completed', duration: 42 });
    const res = await request(app.callback())
      .post(`/api/v1/telephony/simulator/status/${runId}`)
      .set('content-type', 'application/json')
      .set('x-simulator-signature', simulatorSignature(secrets.deriveKey('simulator-webhooks'), body))
      .send(body);
    expect(res.status).toBe(200);
    const after = await runRow(runId);
    expect(after.gatheredContext).toEqual(before.gatheredContext);
    expect(after.callDurationSeconds).toBe(before.callDurationSeconds);
  });
});
