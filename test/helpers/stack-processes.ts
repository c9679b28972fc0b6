import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { freePort } from '../../scripts/free-port';
import { provisionTemporalCli } from '../../scripts/temporal-cli';
import { waitForTemporal } from '../../scripts/temporal-dev-server';
import { ensureSearchAttributes } from '../../platform/temporal';
import { TEST_PASSWORD_HASH_ROUNDS, TEST_SESSION_SECRET } from './app';
import { ManagedProcess } from './managed-process';
import { TEST_SECRETS_KEY } from './telephony';
import { promoteTestBuild, testDataConverter } from './temporal';
import { TEST_ENV, testEnv } from './test-env';

const root = join(__dirname, '..', '..');
const HOST = '127.0.0.1';

/**
 * Everything a campaign runs on besides PostgreSQL, each as its own process that a test can kill
 * and start again on the same ports and files: a Temporal dev server on a SQLite file, the API
 * (api/main.ts, which receives the simulator's webhooks) and the worker (workers/main.ts).
 */
export interface CampaignStack {
  temporal: ManagedProcess;
  api: ManagedProcess;
  worker: ManagedProcess;
  temporalAddress: string;
  apiBaseUrl: string;
  /** A client of this stack's Temporal; it reconnects after a restart. */
  client: Client;
  /** Throws if any of the three exited without being killed. */
  assertAlive(): void;
  close(): Promise<void>;
}

export interface CampaignStackOptions {
  /**
   * The server's `limit.historyCount.suggestContinueAsNew`: a low figure makes a campaign of a few
   * hundred contacts continue as new, as one of many thousands does with the default (4,096 events).
   */
  suggestContinueAsNewEvents?: number;
}

export async function startCampaignStack(
  databaseUrl: string,
  taskQueue: string,
  options: CampaignStackOptions = {},
): Promise<CampaignStack> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-stack-'));
  chmodSync(dir, 0o755);
  const temporalPort = await freePort();
  const temporalAddress = `${HOST}:${temporalPort}`;
  const apiPort = await freePort();
  const apiBaseUrl = `http://${HOST}:${apiPort}`;

  const temporal = new ManagedProcess({
    name: 'temporal server start-dev',
    command: process.env[TEST_ENV.temporalCliPath] ?? (await temporalCliPath()),
    // --headless: no UI port to keep free across restarts.
    args: [
      'server',
      'start-dev',
      '--db-filename',
      join(dir, 'temporal.sqlite'),
      '--ip',
      HOST,
      '--port',
      String(temporalPort),
      '--headless',
      '--log-level',
      'warn',
      ...(options.suggestContinueAsNewEvents === undefined
        ? []
        : ['--dynamic-config-value', `limit.historyCount.suggestContinueAsNew=${options.suggestContinueAsNewEvents}`]),
    ],
    env: process.env,
    ready: () => waitForTemporal(temporalAddress),
  });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    HOST,
    PORT: String(apiPort),
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    SECRETS_KEY: TEST_SECRETS_KEY,
    SESSION_SECRET: TEST_SESSION_SECRET,
    // The tests dial their few numbers many times; the frequency caps have their own tests.
    DIAL_CAP_PER_DAY: '0',
    DIAL_CAP_PER_WEEK: '0',
    PASSWORD_HASH_ROUNDS: TEST_PASSWORD_HASH_ROUNDS,
    PUBLIC_BASE_URL: apiBaseUrl,
    WORKER_METRICS_PORT: String(await freePort()),
    // No live calls here to make way for, and jest's own processes would starve a lowered worker.
    WORKER_NICE: '0',
    // The run's bundle for every worker start: restarts skip webpack, as production workers do.
    WORKFLOW_BUNDLE_PATH: testEnv('workflowBundle'),
    DATA_DIR: dir,
  };
  const node = (entry: string) => ({
    command: process.execPath,
    args: ['--import', 'tsx', join(root, entry)],
    env,
    cwd: root,
  });
  const api = new ManagedProcess({ name: 'api', ...node('api/main.ts'), ready: () => apiHealthy(apiBaseUrl) });

  await temporal.start();
  const connection = await Connection.connect({ address: temporalAddress });
  const client = new Client({ connection, namespace: 'default', dataConverter: testDataConverter });
  // Registered once: they live in the SQLite file, so a restarted server must still know them.
  await ensureSearchAttributes(connection, 'default');
  // Its first start waits for its build to be promoted; a restart runs the same build, current already.
  let promoted: Promise<void> | undefined;
  const worker = new ManagedProcess({
    name: 'worker',
    ...node('workers/main.ts'),
    ready: () => (promoted ??= promoteTestBuild(client)),
  });
  try {
    await api.start();
  } catch (error) {
    // No stack to close yet: stop what did start, or the dev server outlives the test run.
    await api.kill();
    await temporal.kill();
    await connection.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const processes = [temporal, api, worker];
  return {
    temporal,
    api,
    worker,
    temporalAddress,
    apiBaseUrl,
    client,
    assertAlive: () => processes.forEach((process) => process.assertAlive()),
    async close() {
      for (const process of [worker, api, temporal]) await process.kill();
      await connection.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The CLI binary: killing and restarting needs our own process, not the SDK's download. */
async function temporalCliPath(): Promise<string> {
  const executable = await provisionTemporalCli(() => undefined);
  if (executable.type !== 'existing-path') throw new Error('No local Temporal CLI: run npm run temporal:cli');
  return executable.path;
}

/** The API's first start compiles its sources with tsx: minutes, not seconds, on a loaded machine. */
export async function apiHealthy(baseUrl: string, timeoutMs = 150_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(`${baseUrl}/api/v1/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the API at ${baseUrl} did not answer within ${timeoutMs} ms`);
}
