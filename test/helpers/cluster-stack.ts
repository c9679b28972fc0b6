import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { provisionTemporalCli } from '../../scripts/temporal-cli';
import {
  freeLowPort,
  freeTemporalPorts,
  postgresAddress,
  registerNamespace,
  setupTemporalSchemas,
  temporalServerCommand,
  DYNAMIC_CONFIG_FILE,
} from '../../scripts/temporal-cluster';
import { waitForTemporal } from '../../scripts/temporal-dev-server';
import { provisionTemporalServer } from '../../scripts/temporal-server';
import { temporalDataConverter } from '../../platform/payload-codec';
import { ManagedProcess } from './managed-process';
import { promoteTestBuild } from './temporal';
import { testEnv } from './test-env';

const root = join(__dirname, '..', '..');
const HOST = '127.0.0.1';

/**
 * The production topology as `npm run start:cluster` runs it, each part a process a test can kill
 * and start again: the official Temporal server on the run's PostgreSQL (databases of its own,
 * created by compose's schema script, the namespace by compose's namespace script), and workers and
 * API processes in NODE_ENV=production, each API on its own port.
 */
export interface ClusterStack {
  temporal: ManagedProcess;
  workers: ManagedProcess[];
  apis: ManagedProcess[];
  apiBaseUrls: string[];
  temporalAddress: string;
  /** A client of the cluster's Temporal; it reconnects after a restart. */
  client: Client;
  /** The processes' data converter (their production key): replaying their histories needs it. */
  dataConverter: DataConverter;
  assertAlive(): void;
  close(): Promise<void>;
}

export interface ClusterStackOptions {
  workers?: number;
  apis?: number;
  /**
   * Added to the committed dynamic config as `limit.historyCount.suggestContinueAsNew`: a low figure
   * makes a campaign of a few hundred contacts continue as new, as one of thousands does by default.
   */
  suggestContinueAsNewEvents?: number;
  /**
   * New search attributes usable at once, so the namespace script skips its fixed pause for the
   * server's caches: the dynamic config then reads them on every use and refreshes the namespace
   * cache every second (`system.forceSearchAttributesCacheRefreshOnRead`, as the upstream development
   * config does, and `system.namespaceCacheRefreshInterval`). Off: the committed config's caches.
   */
  searchAttributesAtOnce?: boolean;
}

/** A dynamic config setting in the server's YAML form, for every namespace. */
const setting = (key: string, value: string | number | boolean) =>
  `${key}:\n  - value: ${value}\n    constraints: {}\n`;

/** The committed dynamic config, plus the test's settings when it sets any, in `dir`. */
function dynamicConfigFile(dir: string, options: ClusterStackOptions): string | undefined {
  const added = [
    ...(options.suggestContinueAsNewEvents === undefined
      ? []
      : [setting('limit.historyCount.suggestContinueAsNew', options.suggestContinueAsNewEvents)]),
    ...(options.searchAttributesAtOnce
      ? [
          setting('system.forceSearchAttributesCacheRefreshOnRead', true),
          setting('system.namespaceCacheRefreshInterval', '1s'),
        ]
      : []),
  ];
  if (added.length === 0) return undefined;
  const path = join(dir, 'dynamicconfig.yaml');
  writeFileSync(path, `${readFileSync(DYNAMIC_CONFIG_FILE, 'utf8')}\n${added.join('')}`);
  return path;
}

export async function startClusterStack(
  databaseUrl: string,
  taskQueue: string,
  options: ClusterStackOptions = {},
): Promise<ClusterStack> {
  const counts = { workers: options.workers ?? 2, apis: options.apis ?? 2 };
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-cluster-'));
  chmodSync(dir, 0o755);
  const log = (line: string) => process.stdout.write(`[cluster] ${line}\n`);
  const [binaries, cli] = await Promise.all([provisionTemporalServer(log), provisionTemporalCli(log)]);
  if (cli.type !== 'existing-path') throw new Error('No local Temporal CLI: run npm run temporal:cli');

  const postgres = postgresAddress(testEnv('postgresAdminUrl'));
  const suffix = randomBytes(4).toString('hex');
  const databases = { main: `temporal_${suffix}`, visibility: `temporal_visibility_${suffix}` };
  const ports = await freeTemporalPorts();
  const temporalAddress = `${HOST}:${ports.frontend}`;
  // Production refuses the development key: the cluster runs with a key of its own.
  const payloadKeys = `cluster-test:${randomBytes(32).toString('base64')}`;
  const dataConverter = temporalDataConverter({ NODE_ENV: 'production', PAYLOAD_ENCRYPTION_KEYS: payloadKeys });

  // Ports a test kills and restarts processes on: outside the range outgoing connections draw from.
  const taken = new Set(Object.values(ports));
  const lowPort = async () => {
    const port = await freeLowPort(taken);
    taken.add(port);
    return port;
  };
  const apiPorts: number[] = [];
  for (let i = 0; i < counts.apis; i += 1) apiPorts.push(await lowPort());
  const apiBaseUrls = apiPorts.map((port) => `http://${HOST}:${port}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    PAYLOAD_ENCRYPTION_KEYS: payloadKeys,
    LOG_LEVEL: 'warn',
    HOST,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    SESSION_SECRET: randomBytes(48).toString('base64url'),
    SECRETS_KEY: randomBytes(32).toString('hex'),
    // Providers reach one public address; here the first API process.
    PUBLIC_BASE_URL: apiBaseUrls[0],
    TELEPHONY_SIMULATOR: 'true',
    // The tests dial their few numbers many times; the frequency caps have their own tests.
    DIAL_CAP_PER_DAY: '0',
    DIAL_CAP_PER_WEEK: '0',
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    WORKER_NICE: '0',
    WORKFLOW_BUNDLE_PATH: testEnv('workflowBundle'),
    DATA_DIR: dir,
  };
  const node = (entry: string, extra: NodeJS.ProcessEnv) => ({
    command: process.execPath,
    args: ['--import', 'tsx', join(root, entry)],
    env: { ...env, ...extra },
    cwd: root,
  });
  const apis = apiPorts.map(
    (port, i) =>
      new ManagedProcess({
        name: `api ${i + 1}`,
        ...node('api/main.ts', { PORT: String(port) }),
        ready: () => apiHealthy(apiBaseUrls[i] ?? ''),
      }),
  );
  // The API processes start (tsx compiling them) while the server's schemas are made and it starts:
  // they connect to Temporal lazily, as in `npm run start:cluster`.
  const apisStarted = Promise.all(apis.map((api) => api.start()));
  apisStarted.catch(() => undefined);

  const server = temporalServerCommand(binaries, postgres, ports, {
    databases,
    dynamicConfigFile: dynamicConfigFile(dir, options),
  });
  const temporal = new ManagedProcess({
    name: 'temporal-server',
    ...server,
    ready: () => waitForTemporal(temporalAddress, 120_000),
  });
  let connection: Connection;
  try {
    await setupTemporalSchemas(binaries, postgres, () => undefined, databases);
    await temporal.start();
    const settleSeconds = options.searchAttributesAtOnce ? 0 : undefined;
    await registerNamespace(cli.path, temporalAddress, 'default', () => undefined, settleSeconds);
    connection = await Connection.connect({ address: temporalAddress });
    await apisStarted;
  } catch (error) {
    // No stack to close yet: stop what did start, or the processes outlive the test run.
    for (const process of [...apis, temporal]) await process.kill();
    throw error;
  }
  const client = new Client({ connection, namespace: 'default', dataConverter });

  // The first worker start waits for its build to be promoted, as `npm run start:cluster` does; the
  // other workers and every restart run the same build, current already.
  let promoted: Promise<void> | undefined;
  const workers: ManagedProcess[] = [];
  for (let i = 0; i < counts.workers; i += 1) {
    const metricsPort = String(await lowPort());
    workers.push(
      new ManagedProcess({
        name: `worker ${i + 1}`,
        ...node('workers/main.ts', { WORKER_METRICS_PORT: metricsPort }),
        ready: () => (promoted ??= promoteTestBuild(client)),
      }),
    );
  }
  const processes = [temporal, ...workers, ...apis];
  return {
    temporal,
    workers,
    apis,
    apiBaseUrls,
    temporalAddress,
    client,
    dataConverter,
    assertAlive: () => processes.forEach((process) => process.assertAlive()),
    async close() {
      for (const process of [...apis, ...workers, temporal]) await process.kill();
      await connection.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The API's first start compiles its sources with tsx: minutes, not seconds, on a loaded machine. */
async function apiHealthy(baseUrl: string, timeoutMs = 150_000): Promise<void> {
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
