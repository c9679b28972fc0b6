import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { freePort } from '../../scripts/free-port';
import { createSimulatorProvider } from '../../telephony/providers/simulator/adapter';
import { simulatorConfigSchema } from '../../telephony/providers/simulator/config';
import { Secrets } from '../../telephony/secrets';
import { callWorkflowId } from '../../workflows/definitions';
import { buildTestApp } from '../helpers/app';
import { callingOrganization } from '../helpers/calls';
import { localActivityTypes } from '../helpers/histories';
import { ManagedProcess } from '../helpers/managed-process';
import { useTestServices } from '../helpers/services';
import { apiHealthy } from '../helpers/stack-processes';
import { promoteTestBuild, uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { testEnv } from '../helpers/test-env';
import { transferringAgent } from '../helpers/transfer-agent';
import { waitFor } from '../helpers/wait-for';

const services = useTestServices();
const root = join(__dirname, '..', '..');

let http: Server;
let baseUrl: string;

beforeAll(async () => {
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

/** `npm run worker` as its own process, on this file's database and task queue. */
async function startWorker(taskQueue: string, publicBaseUrl = baseUrl): Promise<ChildProcess> {
  return spawn(process.execPath, ['--import', 'tsx', join(root, 'workers', 'main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: services.db.url,
      TEMPORAL_ADDRESS: testEnv('temporalAddress'),
      TEMPORAL_TASK_QUEUE: taskQueue,
      SECRETS_KEY: TEST_SECRETS_KEY,
      PUBLIC_BASE_URL: publicBaseUrl,
      WORKER_METRICS_PORT: String(await freePort()),
      // No live calls here to make way for; a lowered worker starves beside the other test runs.
      WORKER_NICE: '0',
      WORKFLOW_BUNDLE_PATH: testEnv('workflowBundle'),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'switchboard-worker-')),
    },
    stdio: 'ignore',
  });
}

/** How long a worker (or API) process may take to start: tsx compiles it, for minutes on a loaded machine. */
const WORKER_START_MS = 420_000;

/** Resolves once `child` is gone; one that already exited is no error. */
const killed = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });

/**
 * The simulator's transfer of the run, once the call workflow has started one. The wait includes the
 * worker process's own start (tsx compiling it), which takes minutes on a loaded machine.
 */
const transferStarted = (runId: number): Promise<string> =>
  waitFor(
    'the transfer',
    async () => {
      const [row] = await services.db.dataSource.query<{ transfer_id: string }[]>(
        `SELECT t.transfer_id FROM simulator_transfers t
           JOIN runs r ON r.provider_call_id = t.provider_call_id WHERE r.id = $1`,
        [runId],
      );
      return row?.transfer_id;
    },
    { timeoutMs: 240_000, intervalMs: 200 },
  );

/** The simulated callee hangs up: the simulator ends the call and posts its final status. */
async function calleeHangsUp(runId: number): Promise<void> {
  const [run] = await services.db.dataSource.query<{ provider_call_id: string }[]>(
    'SELECT provider_call_id FROM runs WHERE id = $1',
    [runId],
  );
  const simulator = createSimulatorProvider(simulatorConfigSchema.parse({}), {
    dataSource: services.db.dataSource,
    secrets: new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex')),
  });
  await simulator.hangup(run!.provider_call_id);
}

// The two crashes use their own task queues and processes, so they run side by side.
it.concurrent(
  'brings the caller back when the worker is SIGKILLed while the destination rings: the ring timeout survives it',
  async () => {
    const taskQueue = uniqueTaskQueue('calls-transfer-crash');
    // Both worker processes are killed however the case ends, so none outlives the file. The first
    // one starts (tsx compiling it) while the organization is set up.
    const workers: ChildProcess[] = [await startWorker(taskQueue)];
    try {
      const { app } = buildTestApp(
        { dataSource: services.db.dataSource, temporal: services.temporal.client },
        { TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY },
      );
      const handle = app.callback();
      http.on('request', (req, res) => void handle(req, res));
      // The callee stays long enough for the transfer to ring out and the conversation to carry on,
      // even when the restarted worker takes minutes to start on a loaded machine; the test hangs up.
      const org = await callingOrganization(handle, { ring_seconds: 1, talk_seconds: 240 });
      // A destination that rings and never answers: only the workflow's ring timeout ends it.
      const agent = await transferringAgent(handle, org.owner.token, {
        destination_source: 'static',
        destination: '+14155550408',
        ring_timeout_seconds: 15,
      });

      await promoteTestBuild(services.temporal.client, 'switchboard', WORKER_START_MS);
      const res = await request(handle)
        .post(`/api/v1/public/agent/${agent.triggerPath}`)
        .set('X-API-Key', org.apiKey)
        .send({ phone_number: '+14155550777' });
      expect(res.status).toBe(200);
      const runId = res.body.workflow_run_id as number;
      const call = services.temporal.client.workflow.getHandle(callWorkflowId(runId));

      // The destination rings: kill the worker that started the transfer.
      const transferId = await transferStarted(runId);
      await killed(workers[0]!);
      const killedAt = new Date();
      workers.push(await startWorker(taskQueue));

      // The restarted worker rings the transfer out and carries the conversation on; the callee then
      // hangs up. (The call's own end, at talk_seconds, would come as no webhook: the killed worker
      // had scheduled them. The workflow's look-ups would find it, at intervals doubling to minutes.)
      await waitFor(
        'the conversation to carry on after the transfer',
        async () => {
          const events = (await call.fetchHistory()).events ?? [];
          if (events.some((event) => event.workflowExecutionCompletedEventAttributes)) {
            throw new Error('the call ended before its conversation carried on (the restarted worker came too late)');
          }
          return localActivityTypes(events).filter((type) => type === 'runConversation').length >= 2;
        },
        { timeoutMs: 300_000, intervalMs: 500 },
      );
      await calleeHangsUp(runId);
      await call.result();

      expect(transferId).toMatch(/^SIMT/);
      const detail = await request(handle)
        .get(`/api/v1/workflow/${agent.workflowId}/runs/${runId}`)
        .auth(org.owner.token, { type: 'bearer' });
      // The restarted worker's ring timeout ended the transfer, and the agent came back to the caller.
      expect(detail.body.transfer).toMatchObject({ outcome: 'no-answer', reason: 'transfer_failed: nobody answered' });
      expect(detail.body.gathered_context.call_status).toBe('completed');
      const said = (detail.body.logs.transcript as { text: string }[]).map((line) => line.text);
      expect(said.some((text) => text.includes('I could not put you through'))).toBe(true);
      // The destination's leg was canceled at the provider, not left ringing, after the kill: by the
      // restarted worker.
      const transfers = await services.db.dataSource.query<{ canceled_at: Date | null }[]>(
        `SELECT t.canceled_at FROM simulator_transfers t
         JOIN runs r ON r.provider_call_id = t.provider_call_id WHERE r.id = $1`,
        [runId],
      );
      expect(transfers).toHaveLength(1);
      expect(transfers[0]?.canceled_at?.getTime()).toBeGreaterThan(killedAt.getTime());
    } finally {
      await Promise.all(workers.map(killed));
    }
  },
  900_000,
);

it.concurrent(
  'joins the caller to the person when the API, which receives the transfer webhooks, is SIGKILLed while the destination rings',
  async () => {
    const taskQueue = uniqueTaskQueue('calls-transfer-api-crash');
    const { app } = buildTestApp(
      { dataSource: services.db.dataSource, temporal: services.temporal.client },
      { TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY },
    );
    const handle = app.callback();
    // The API the simulator posts its webhooks to, as its own process: the one killed.
    const apiPort = await freePort();
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const api = new ManagedProcess({
      name: 'api',
      command: process.execPath,
      args: ['--import', 'tsx', join(root, 'api', 'main.ts')],
      cwd: root,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        PORT: String(apiPort),
        DATABASE_URL: services.db.url,
        TEMPORAL_ADDRESS: testEnv('temporalAddress'),
        TEMPORAL_TASK_QUEUE: taskQueue,
        SECRETS_KEY: TEST_SECRETS_KEY,
        PUBLIC_BASE_URL: apiUrl,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'switchboard-api-')),
      },
      // Its start (tsx compiling the API) is slow on a loaded machine.
      ready: () => apiHealthy(apiUrl, WORKER_START_MS),
    });
    // The API and the worker start (tsx compiling each) while the organization is set up.
    const worker = await startWorker(taskQueue, apiUrl);
    const apiStarted = api.start();
    apiStarted.catch(() => undefined);
    try {
      // The destination answers after ring_seconds; the caller and the person then talk for talk_seconds.
      const org = await callingOrganization(handle, { ring_seconds: 4, talk_seconds: 20 });
      const ringTimeoutSeconds = 20;
      const agent = await transferringAgent(handle, org.owner.token, {
        destination_source: 'static',
        destination: '+14155550199',
        ring_timeout_seconds: ringTimeoutSeconds,
      });
      await apiStarted;
      await promoteTestBuild(services.temporal.client, 'switchboard', WORKER_START_MS);
      const res = await request(handle)
        .post(`/api/v1/public/agent/${agent.triggerPath}`)
        .set('X-API-Key', org.apiKey)
        .send({ phone_number: '+14155550777' });
      expect(res.status).toBe(200);
      const runId = res.body.workflow_run_id as number;

      // The destination rings: the API dies, so its answer never comes as a webhook.
      await transferStarted(runId);
      await api.kill();
      // No webhook reaches the workflow any more: it looks the transfer, then the call, up itself.
      await services.temporal.client.workflow.getHandle(callWorkflowId(runId)).result();
      const detail = await request(handle)
        .get(`/api/v1/workflow/${agent.workflowId}/runs/${runId}`)
        .auth(org.owner.token, { type: 'bearer' });
      expect(detail.body.transfer).toMatchObject({ outcome: 'joined' });
      expect(detail.body.disposition).toBe('transferred');
      // Settled within the ring timeout plus one status look-up (the default poll interval, 15 s).
      expect(detail.body.transfer.ring_seconds).toBeLessThanOrEqual(ringTimeoutSeconds + 15);
    } finally {
      await killed(worker);
      await api.kill();
    }
  },
  900_000,
);
