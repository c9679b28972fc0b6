import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Worker } from '@temporalio/worker';
import request from 'supertest';
import { callWorkflowId } from '../../workflows/definitions';
import { transferringAgent, type TransferringAgent } from '../helpers/transfer-agent';
import { buildTestApp } from '../helpers/app';
import { callWorker } from '../helpers/call-worker';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();

let http: Server;
let baseUrl: string;
let taskQueue: string;
let app: ReturnType<typeof buildTestApp>['app'];
let org: CallingOrganization;
let worker: Worker;
let working: Promise<void>;

const agentWith = (config: Record<string, unknown>): Promise<TransferringAgent> =>
  transferringAgent(app.callback(), org.owner.token, { ring_timeout_seconds: 5, ...config });

beforeAll(async () => {
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  taskQueue = uniqueTaskQueue('calls-transfer');
  app = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY },
  ).app;
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  // The callee stays on the line long enough for a transfer to ring out and the agent to come back,
  // with the four calls side by side on a loaded machine.
  org = await callingOrganization(app.callback(), { ring_seconds: 1, talk_seconds: 40 });
});

afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

/** Places a call and waits for its workflow's end. */
const callToTheEnd = async (triggerPath: string, initialContext: object = {}): Promise<number> => {
  const id = await call(triggerPath, initialContext);
  await services.temporal.client.workflow.getHandle(callWorkflowId(id)).result();
  return id;
};

const call = async (triggerPath: string, initialContext: object = {}): Promise<number> => {
  const res = await request(app.callback())
    .post(`/api/v1/public/agent/${triggerPath}`)
    .set('X-API-Key', org.apiKey)
    .send({ phone_number: '+14155550123', initial_context: initialContext });
  expect(res.status).toBe(200);
  return res.body.workflow_run_id as number;
};

interface RunDetailBody {
  disposition: string;
  gathered_context: { call_status: string };
  logs: {
    transcript: { role: string; text: string }[];
    tool_calls?: { function: string; status: string; result_excerpt: string }[];
    transfers?: { outcome: string }[];
  };
  transfer: { destination: string; mode: string; outcome: string; ring_seconds: number; reason?: string } | null;
}

const detail = async (agent: TransferringAgent, runId: number): Promise<RunDetailBody> => {
  const res = await request(app.callback())
    .get(`/api/v1/workflow/${agent.workflowId}/runs/${runId}`)
    .auth(org.owner.token, { type: 'bearer' });
  expect(res.status).toBe(200);
  return res.body as RunDetailBody;
};

describe('transfers through the API, Temporal, a worker and the simulator', () => {
  // One worker for the calls, which run side by side (each rings out or talks for seconds); it stops
  // here, before the file's Temporal connection closes.
  beforeAll(async () => {
    worker = await callWorker(services, { taskQueue, baseUrl, identity: 'e2e-transfer' });
    working = worker.run();
  });
  afterAll(async () => {
    worker.shutdown();
    await working;
  });

  it.concurrent(
    'joins the caller with a person who answers: the run is transferred, the destination masked',
    async () => {
      {
        const agent = await agentWith({ destination_source: 'static', destination: '+14155550999' });
        const runId = await callToTheEnd(agent.triggerPath);
        const run = await detail(agent, runId);
        expect(run.disposition).toBe('transferred');
        expect(run.gathered_context.call_status).toBe('completed');
        expect(run.transfer).toMatchObject({ destination: '+14*******99', mode: 'blind', outcome: 'joined' });
        expect(run.transfer?.reason).toBeUndefined();
        const said = run.logs.transcript.filter((line) => line.role !== 'tool');
        expect(said.at(-1)?.text).toContain('Let me put you through.');
        expect(run.logs.transcript.filter((line) => line.role === 'tool').map((line) => line.text)).toEqual([
          'put_through({}) → ok',
        ]);
        expect(run.logs.tool_calls?.[0]).toMatchObject({ function: 'put_through', status: 'ok' });
      }
    },
    120_000,
  );

  it.concurrent.each([
    ['busy', '+14155550486', 'busy', 'the line was busy'],
    ['no answer (the ring timeout)', '+14155550408', 'no-answer', 'nobody answered'],
    ['failed', '+14155550503', 'failed', 'the call to the destination failed'],
  ])(
    'comes back to the caller when the destination is %s, and the conversation carries on',
    async (_, to, outcome, reason) => {
      {
        const agent = await agentWith({ destination_source: 'dynamic', allowed_destinations: [to] });
        const runId = await callToTheEnd(agent.triggerPath, { destination: to });
        const run = await detail(agent, runId);
        expect(run.transfer).toMatchObject({ mode: 'blind', outcome, reason: `transfer_failed: ${reason}` });
        expect(run.disposition).not.toBe('transferred');
        expect(run.gathered_context.call_status).toBe('completed');
        const said = run.logs.transcript.filter((line) => line.role !== 'tool').map((line) => line.text);
        const back = said.findIndex((text) =>
          text.includes(`I could not put you through (transfer_failed: ${reason})`),
        );
        expect(back).toBeGreaterThan(0);
        // The conversation went on after it: the callee answered and the agent carried on to the end.
        expect(said.length).toBeGreaterThan(back + 2);
        expect(run.logs.tool_calls?.[0]).toMatchObject({ status: 'failed' });
        expect(run.logs.tool_calls?.[0]?.result_excerpt).toContain(reason);
        // The destination leg is not left ringing.
        const [leg] = await services.db.dataSource.query<{ canceled_at: Date | null; planned_outcome: string }[]>(
          `SELECT t.canceled_at, t.planned_outcome FROM simulator_transfers t
           JOIN runs r ON r.provider_call_id = t.provider_call_id WHERE r.id = $1`,
          [runId],
        );
        if (leg?.planned_outcome === 'no-answer') expect(leg.canceled_at).not.toBeNull();
      }
    },
    120_000,
  );
});
