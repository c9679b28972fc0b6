import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { freePort } from '../../scripts/free-port';
import { callWorkflowId } from '../../workflows/definitions';
import { buildTestApp } from '../helpers/app';
import { callingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { promoteTestBuild, uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { testEnv } from '../helpers/test-env';
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
async function startWorker(taskQueue: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'workers', 'main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      DATABASE_URL: services.db.url,
      TEMPORAL_ADDRESS: testEnv('temporalAddress'),
      TEMPORAL_TASK_QUEUE: taskQueue,
      SECRETS_KEY: TEST_SECRETS_KEY,
      PUBLIC_BASE_URL: baseUrl,
      WORKER_METRICS_PORT: String(await freePort()),
      // The run's bundle, as production workers load theirs: a restart does not wait for webpack.
      WORKFLOW_BUNDLE_PATH: testEnv('workflowBundle'),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'switchboard-worker-')),
    },
    stdio: 'ignore',
  });
  return child;
}

const killed = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

it('completes a call whose worker was SIGKILLed after dialing, without dialing twice', async () => {
  const taskQueue = uniqueTaskQueue('calls-crash');
  const { app } = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY },
  );
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  const org = await callingOrganization(handle, { ring_seconds: 2, talk_seconds: 3 });

  const first = await startWorker(taskQueue);
  // As `npm start` does for its worker; the restarted worker below runs the same build.
  await promoteTestBuild(services.temporal.client);
  const res = await request(handle)
    .post(`/api/v1/public/agent/workflow/${org.agent.workflow_uuid}`)
    .set('X-API-Key', org.apiKey)
    .send({ phone_number: '+14155550777' });
  expect(res.status).toBe(200);
  const runId = res.body.workflow_run_id as number;

  // placeCall has dialed (the run holds the provider's call id) and the call still rings: kill.
  await waitFor(
    'the dial',
    async () => {
      const [row] = await services.db.dataSource.query<{ provider_call_id: string | null }[]>(
        `SELECT provider_call_id FROM runs WHERE id = $1`,
        [runId],
      );
      return row?.provider_call_id;
    },
    { timeoutMs: 90_000, intervalMs: 200 },
  );
  await killed(first);
  const [midway] = await services.db.dataSource.query<{ is_completed: boolean }[]>(
    `SELECT is_completed FROM runs WHERE id = $1`,
    [runId],
  );
  expect(midway?.is_completed).toBe(false);

  // The webhooks the dead worker would have posted are lost: the new worker asks the simulator.
  const second = await startWorker(taskQueue);
  try {
    await services.temporal.client.workflow.getHandle(callWorkflowId(runId)).result();
  } finally {
    await killed(second);
  }
  const [run] = await services.db.dataSource.query<
    { is_completed: boolean; gathered_context: { call_status: string }; logs: { transcript: unknown[] } }[]
  >(`SELECT is_completed, gathered_context, logs FROM runs WHERE id = $1`, [runId]);
  expect(run?.is_completed).toBe(true);
  expect(run?.gathered_context.call_status).toBe('completed');
  expect(run?.logs.transcript.length).toBeGreaterThan(0);
  const dials = await services.db.dataSource.query<unknown[]>(
    `SELECT 1 FROM simulator_calls WHERE to_address = '+14155550777'`,
  );
  expect(dials).toHaveLength(1);
}, 300_000);
