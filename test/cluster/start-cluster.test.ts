import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Client as PgClient } from 'pg';
import { EMBEDDED_DATABASE } from '../../platform/config';
import { canListen } from '../../scripts/port-holder';
import { freeLowPort, freeTemporalFrontendPort, temporalPortsFrom } from '../../scripts/temporal-cluster';
import { callingOrganization } from '../helpers/calls';
import { expectNothingLeft, signalGroup, startUntilReady, stopped, type Started } from '../helpers/orchestrator';
import { testEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/wait-for';

/**
 * `npm run start:cluster` as a user runs it, from this checkout (so a second run reuses its
 * incremental build): it builds, provisions Temporal's schemas on the embedded PostgreSQL, starts
 * the official server, two workers and two API processes; a campaign started through one API is
 * read through the other; Ctrl-C stops everything and leaves nothing behind.
 */

const repository = join(__dirname, '..', '..');

/** A port below the ephemeral range whose next port is free too (the second API, the second worker). */
async function freePortPair(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = await freeLowPort(taken);
    if (!taken.has(port + 1) && (await canListen(port + 1))) {
      taken.add(port).add(port + 1);
      return port;
    }
  }
}

interface Progress {
  state: string;
  total_rows: number;
  processed_rows: number;
  executed_count: number;
  outcomes: Record<string, number>;
}

let dataDir: string;
let ports: Record<'PORT' | 'WORKER_METRICS_PORT' | 'EMBEDDED_POSTGRES_PORT' | 'TEMPORAL_PORT', number>;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  // PostgreSQL runs as the `postgres` user when we are root: it must be able to enter the folder.
  dataDir = mkdtempSync(join(tmpdir(), 'switchboard-start-cluster-'));
  chmodSync(dataDir, 0o755);
  const temporalPort = await freeTemporalFrontendPort();
  const taken = new Set<number>(Object.values(temporalPortsFrom(temporalPort)));
  ports = {
    TEMPORAL_PORT: temporalPort,
    PORT: await freePortPair(taken),
    WORKER_METRICS_PORT: await freePortPair(taken),
    EMBEDDED_POSTGRES_PORT: await freeLowPort(taken),
  };
  env = {
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
    TEMPORAL_CLI_PATH: testEnv('temporalCliPath'),
    LOG_LEVEL: 'warn',
    TELEPHONY_SIMULATOR: 'true',
    // The simulator posts its webhooks to the first API, on 127.0.0.1.
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    PUBLIC_BASE_URL: `http://127.0.0.1:${ports.PORT}`,
    CLUSTER_WORKERS: '2',
    CLUSTER_APIS: '2',
    ...Object.fromEntries(Object.entries(ports).map(([key, value]) => [key, String(value)])),
  };
});

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('builds and starts the cluster, runs a campaign through one API read through the other, and stops on Ctrl-C', async () => {
  const started: Started = await startUntilReady(['run', 'start:cluster'], repository, env, 540_000);
  const apis = [ports.PORT, ports.PORT + 1].map((port) => `http://127.0.0.1:${port}`) as [string, string];
  try {
    const output = started.output();
    expect(output).toContain('Building dist/ (npm run build)');
    expect(output).toContain('Ready in');
    for (const api of apis) expect((await fetch(`${api}/api/v1/health/deep`)).status).toBe(200);

    // Temporal keeps its state in the cluster's PostgreSQL, in the databases compose's script made.
    const pg = new PgClient({
      connectionString: `postgres://${EMBEDDED_DATABASE.user}:${EMBEDDED_DATABASE.password}@127.0.0.1:${ports.EMBEDDED_POSTGRES_PORT}/temporal`,
    });
    await pg.connect();
    const namespaces = await pg.query<{ name: string }>('SELECT name FROM namespaces');
    await pg.end();
    expect(namespaces.rows.map((row) => row.name)).toContain('default');

    const org = await callingOrganization(apis[0], { ring_seconds: 0, talk_seconds: 0 });
    const headers = { 'X-API-Key': org.apiKey };
    const upload = await fetch(`${apis[0]}/api/v1/campaign/sources?file_name=contacts.csv`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'text/csv' },
      body: 'phone_number,first_name\n+14152000101,Grace\n+14152000102,Alan\n+14152000103,Barbara\n',
    });
    expect(upload.status).toBe(201);
    const { source_id: sourceId } = (await upload.json()) as { source_id: string };
    const created = await fetch(`${apis[0]}/api/v1/campaign/create`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'Cluster',
        workflow_id: org.agent.id,
        source_type: 'csv',
        source_id: sourceId,
        max_concurrency: 2,
        retry_config: { enabled: false },
      }),
    });
    expect(created.status).toBe(201);
    const { id: campaignId } = (await created.json()) as { id: number };
    expect((await fetch(`${apis[0]}/api/v1/campaign/${campaignId}/start`, { method: 'POST', headers })).status).toBe(
      200,
    );

    let progress: Progress | undefined;
    await waitFor(
      'the campaign to complete, read through the second API',
      async () => {
        const res = await fetch(`${apis[1]}/api/v1/campaign/${campaignId}/progress`, { headers }).catch(
          () => undefined,
        );
        progress = res?.ok ? ((await res.json()) as Progress) : progress;
        return progress?.state === 'completed';
      },
      { timeoutMs: 180_000, intervalMs: 500 },
    );
    expect(progress).toMatchObject({
      total_rows: 3,
      processed_rows: 3,
      executed_count: 3,
      outcomes: { completed: 3 },
    });

    // Both workers poll the task queue.
    const connection = await Connection.connect({ address: `127.0.0.1:${ports.TEMPORAL_PORT}` });
    try {
      const queue = await connection.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: 'switchboard' },
        taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      expect(new Set(queue.pollers?.map((poller) => poller.identity)).size).toBe(2);
    } finally {
      await connection.close();
    }
  } catch (error) {
    process.stdout.write(`npm run start:cluster output:\n${started.output()}\n`);
    throw error;
  } finally {
    const stopStarted = Date.now();
    signalGroup(started.child, 'SIGINT');
    await stopped(started.child);
    const seconds = (Date.now() - stopStarted) / 1000;
    process.stdout.write(
      `npm run start:cluster: ready in ${started.readySeconds} s, stopped by Ctrl-C in ${seconds} s\n`,
    );
    expect(started.output()).toContain('[cluster] Stopped.');
    // Workers drain their tasks first (WORKER_SHUTDOWN_GRACE_SECONDS); a loaded machine is slow.
    expect(seconds).toBeLessThan(60);
  }
  const temporalPorts = Object.values(temporalPortsFrom(ports.TEMPORAL_PORT));
  await expectNothingLeft(
    [dataDir, `FRONTEND_GRPC_PORT=${ports.TEMPORAL_PORT}`],
    [
      ports.PORT,
      ports.PORT + 1,
      ports.WORKER_METRICS_PORT,
      ports.WORKER_METRICS_PORT + 1,
      ports.EMBEDDED_POSTGRES_PORT,
      ...temporalPorts,
    ],
    10_000,
  );
}, 720_000);
