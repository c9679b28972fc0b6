import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Run, SimulatorCall } from '../../entities';
import { callWorkflowId } from '../../workflows/definitions';
import { signUp } from '../helpers/accounts';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { callWorker } from '../helpers/call-worker';
import { useTestServices } from '../helpers/services';
import { createAgent, sampleDefinition } from '../helpers/agents';
import { createPhoneNumber, createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';
import { uniqueTaskQueue } from '../helpers/temporal';

const services = useTestServices();

let http: Server;
let baseUrl: string;
let taskQueue: string;
let app: ReturnType<typeof buildTestApp>['app'];
let org: CallingOrganization;
const BOUND = '+14155550142';
const UNBOUND = '+14155550143';
const LONG_CALL = '+14155550144';

beforeAll(async () => {
  // The simulator posts the inbound webhook and the status webhooks to PUBLIC_BASE_URL: a real port.
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  taskQueue = uniqueTaskQueue('calls-inbound');
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
  // Binding through the API: the simulator needs no provider-side configuration.
  await createPhoneNumber(app.callback(), org.owner.token, org.configuration.id, {
    address: BOUND,
    inbound_workflow_id: org.agent.id,
  });
  await createPhoneNumber(app.callback(), org.owner.token, org.configuration.id, { address: UNBOUND });
});

afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

const createWorker = () =>
  callWorker(services, {
    taskQueue,
    baseUrl,
    identity: 'e2e-calls-inbound',
    prices: { perMinuteUsd: 0.06, per1kTokensUsd: 0.002 },
  });

const ring = (to: string) =>
  request(app.callback())
    .post('/api/v1/telephony/simulator/ring')
    .set('X-API-Key', org.apiKey)
    .send({ to, from: '+14155550199' });

describe('inbound calls through the simulator, the API, Temporal and a worker', () => {
  it('answers a call to a bound number and completes its run with a transcript, exactly once', async () => {
    const worker = await createWorker();
    let runId = 0;
    await worker.runUntil(async () => {
      const res = await ring(BOUND);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        call_id: expect.stringMatching(/^SIM/),
        answered: true,
        workflow_run_id: expect.any(Number),
      });
      runId = res.body.workflow_run_id as number;
      const outcome = await services.temporal.client.workflow.getHandle(callWorkflowId(runId)).result();
      expect(outcome).toMatchObject({ runId, callStatus: 'completed', durationSeconds: 1 });
    });

    const run = await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
    expect(run).toMatchObject({
      callType: 'inbound',
      provider: 'simulator',
      state: 'completed',
      isCompleted: true,
      calledNumber: BOUND,
      callerNumber: '+14155550199',
      callDurationSeconds: 1,
    });
    expect(run.gatheredContext.call_status).toBe('completed');
    expect(run.gatheredContext.mapped_call_disposition).toBe(run.disposition);
    expect(run.platformTokenUsage).toBeGreaterThan(0);
    expect(run.chargeUsd).toBeGreaterThan(0);
    expect(run.initialContext).toEqual({
      called_number: BOUND,
      caller_number: '+14155550199',
      direction: 'inbound',
      provider: 'simulator',
    });
    // The simulator's call is the run's call: nothing was dialed for it.
    const simulated = await services.db.dataSource.getRepository(SimulatorCall).findBy({ toAddress: BOUND });
    expect(simulated.map((call) => call.providerCallId)).toEqual([run.providerCallId]);

    const transcript = await request(app.callback())
      .get(run.transcriptUrl ?? '')
      .set('X-API-Key', org.apiKey);
    expect(transcript.status).toBe(200);
    expect(transcript.text).toMatch(/^\[\d{4}-\d\d-\d\dT[^\]]+\] assistant: /);

    const listed = await request(app.callback())
      .get(`/api/v1/workflow/${org.agent.id}/runs`)
      .auth(org.owner.token, { type: 'bearer' });
    expect((listed.body.runs as { id: number }[]).map((item) => item.id)).toContain(runId);
  });

  it('hangs up an inbound call at max_call_duration and records one terminal status', async () => {
    // A caller who would talk 30 s, to an agent allowed 2 s.
    const config = await createTelephonyConfig(app.callback(), org.owner.token, {
      provider: 'simulator',
      ring_seconds: 0,
      talk_seconds: 30,
    });
    const agent = await createAgent(app.callback(), org.owner.token, sampleDefinition(), 'Short agent');
    await services.db.dataSource.query(
      `UPDATE agent_versions SET workflow_configurations = '{"max_call_duration": 2}' WHERE id = $1`,
      [agent.current_definition_id],
    );
    await createPhoneNumber(app.callback(), org.owner.token, config.id, {
      address: LONG_CALL,
      inbound_workflow_id: agent.id,
    });

    const worker = await createWorker();
    let runId = 0;
    await worker.runUntil(async () => {
      const res = await ring(LONG_CALL);
      expect(res.body).toMatchObject({ answered: true });
      runId = res.body.workflow_run_id as number;
      const outcome = await services.temporal.client.workflow.getHandle(callWorkflowId(runId)).result();
      expect(outcome).toMatchObject({ callStatus: 'completed' });
    });
    const run = await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
    expect(run.gatheredContext.call_status).toBe('completed');
    expect(run.callDurationSeconds).toBeGreaterThanOrEqual(2);
    expect(run.callDurationSeconds).toBeLessThan(30);
    const call = await services.db.dataSource
      .getRepository(SimulatorCall)
      .findOneByOrFail({ providerCallId: run.providerCallId ?? '' });
    expect(call.hungUpAt).not.toBeNull();
  });

  it('refuses a call to an unbound number: no run, no workflow', async () => {
    const before = await services.db.dataSource.getRepository(Run).countBy({ callType: 'inbound' });
    const res = await ring(UNBOUND);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ call_id: expect.stringMatching(/^SIM/), answered: false, workflow_run_id: null });
    expect(await services.db.dataSource.getRepository(Run).countBy({ callType: 'inbound' })).toBe(before);
  });

  it("rings only the caller's numbers on a simulator configuration", async () => {
    const res = await ring('+14155550999');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Phone number not found on a simulator configuration' });

    const stranger = await signUp(app.callback());
    const theirs = await request(app.callback())
      .post('/api/v1/telephony/simulator/ring')
      .auth(stranger.token, { type: 'bearer' })
      .send({ to: BOUND });
    expect(theirs.status).toBe(404);
  });

  it('answers 502 when the inbound webhook cannot be reached', async () => {
    const unreachable = buildTestApp(
      { dataSource: services.db.dataSource, temporal: services.temporal.client },
      { TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL: 'http://127.0.0.1:9', SECRETS_KEY: TEST_SECRETS_KEY },
    ).app.callback();
    const res = await request(unreachable)
      .post('/api/v1/telephony/simulator/ring')
      .set('X-API-Key', org.apiKey)
      .send({ to: BOUND });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({
      detail: 'The inbound webhook at http://127.0.0.1:9/api/v1/telephony/simulator/inbound could not be reached',
    });
  });
});
