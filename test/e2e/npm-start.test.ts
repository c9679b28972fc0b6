import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { testEnv } from '../helpers/test-env';
import { freePort } from '../../scripts/free-port';

const root = join(__dirname, '..', '..');

interface Started {
  child: ChildProcess;
  output: () => string;
  readySeconds: number;
}

/** Runs `scripts/start.ts` (what `npm start` runs) and waits for its "Ready" line. */
function start(env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'start.ts')], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready within 90 s:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /Ready in ([\d.]+) s/.exec(output);
      if (ready && output.includes('Press Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve({ child, output: () => output, readySeconds: Number(ready[1]) });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`start exited with ${code}:\n${output}`));
    });
  });
}

/**
 * `start`, tried again when a port was taken between `freePort()` and its use: the Temporal dev
 * server binds its internal services to random free ports, which can be the one chosen for another
 * service a moment earlier. A failed start stops all it started, so the same ports are free again.
 */
async function startRetrying(env: NodeJS.ProcessEnv, attempts = 3): Promise<Started> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start(env);
    } catch (error) {
      if (attempt >= attempts || !String(error).includes('EADDRINUSE')) throw error;
      process.stdout.write(`npm start: a port was taken (attempt ${attempt}); starting again\n`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

const stop = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill('SIGTERM');
  });

it('npm start runs everything on embedded services, stops cleanly and keeps its data', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-start-'));
  chmodSync(dataDir, 0o755); // reachable by the `postgres` user when run as root
  const ports = {
    PORT: await freePort(),
    EMBEDDED_POSTGRES_PORT: await freePort(),
    TEMPORAL_PORT: await freePort(),
    TEMPORAL_UI_PORT: await freePort(),
    WORKER_METRICS_PORT: await freePort(),
  };
  const env = {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    TEMPORAL_CLI_PATH: testEnv('temporalCliPath'),
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
    ...Object.fromEntries(Object.entries(ports).map(([key, value]) => [key, String(value)])),
  };
  const api = `http://127.0.0.1:${ports.PORT}/api/v1`;

  const first = await startRetrying(env);
  try {
    expect(first.output()).toContain(`Temporal UI: http://localhost:${ports.TEMPORAL_UI_PORT}`);
    expect((await fetch(`${api}/health`)).status).toBe(200);
    expect((await fetch(`${api}/health/ready`)).status).toBe(200);
    const deep = (await (await fetch(`${api}/health/deep`)).json()) as { workflow_id: string };
    expect((await fetch(`http://127.0.0.1:${ports.TEMPORAL_UI_PORT}/`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.WORKER_METRICS_PORT}/metrics`)).status).toBe(200);

    const connection = await Connection.connect({ address: `127.0.0.1:${ports.TEMPORAL_PORT}` });
    const attributes = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    expect(Object.keys(attributes.customAttributes ?? {})).toEqual(
      expect.arrayContaining(['CampaignId', 'OrganizationId', 'AgentId', 'CampaignState']),
    );
    await connection.close();
    expect(await stop(first.child)).toBe(0);

    // Second start on the same data directory: Temporal history and PostgreSQL rows are still there.
    const second = await startRetrying(env);
    try {
      expect(second.output()).not.toContain('Applied migrations');
      expect(second.output()).not.toContain('Registered search attributes');
      const client = new Client({
        connection: await Connection.connect({ address: `127.0.0.1:${ports.TEMPORAL_PORT}` }),
      });
      expect((await client.workflow.getHandle(deep.workflow_id).describe()).status.name).toBe('COMPLETED');
      await client.connection.close();
      const pg = new PgClient({
        connectionString: `postgres://switchboard:switchboard@127.0.0.1:${ports.EMBEDDED_POSTGRES_PORT}/switchboard`,
      });
      await pg.connect();
      const migrations = await pg.query('SELECT name FROM migrations');
      await pg.end();
      expect(migrations.rowCount).toBeGreaterThan(0);
      process.stdout.write(`npm start: ready in ${first.readySeconds} s (first), ${second.readySeconds} s (restart)\n`);
    } finally {
      expect(await stop(second.child)).toBe(0);
    }
  } finally {
    // SIGTERM, never SIGKILL: the orchestrator must stop the services it started.
    if (first.child.exitCode === null) await stop(first.child);
  }
}, 240_000);
