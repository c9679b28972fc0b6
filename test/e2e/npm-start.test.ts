import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { testDataConverter } from '../helpers/temporal';
import { testEnv } from '../helpers/test-env';
import { callingOrganization } from '../helpers/calls';
import { freePort } from '../../scripts/free-port';
import { COPIED_BINARIES_DIR } from '../../scripts/postgres-binaries';
import { expectNothingLeft, signalGroup, startUntilReady, stopped } from '../helpers/orchestrator';

/**
 * `npm ci && npm start` as a newcomer runs it: from a clone in a folder only its owner may enter
 * (root's home, `mktemp -d`), with its node_modules inside that folder, stopped with Ctrl-C, killed
 * with kill -9, started again; then one test file run with jest from the same clone.
 */

const repository = join(__dirname, '..', '..');
const isRoot = process.getuid?.() === 0;

/**
 * A copy of the checkout (its tracked and new files) in a mode-700 folder, with a real copy of
 * node_modules inside it, as `npm ci` leaves it: PostgreSQL's binaries are out of the `postgres`
 * user's reach too.
 */
function privateCheckout(): { root: string; remove(): void } {
  const outer = mkdtempSync(join(tmpdir(), 'switchboard-private-'));
  chmodSync(outer, 0o700);
  const root = join(outer, 'switchboard');
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repository,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file && file !== 'node_modules');
  for (const file of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    try {
      cpSync(join(repository, file), join(root, file));
    } catch {
      // a tracked file deleted in the working tree
    }
  }
  execFileSync('cp', ['-a', `${realpathSync(join(repository, 'node_modules'))}/.`, join(root, 'node_modules')]);
  return { root, remove: () => rmSync(outer, { recursive: true, force: true }) };
}

const npmStart = (cwd: string, env: NodeJS.ProcessEnv) => startUntilReady(['start'], cwd, env);

interface RunDetail {
  is_completed: boolean;
  logs: { transcript?: { role: string; text: string }[] };
}

let checkout: ReturnType<typeof privateCheckout>;
let ports: Record<
  'PORT' | 'EMBEDDED_POSTGRES_PORT' | 'TEMPORAL_PORT' | 'TEMPORAL_UI_PORT' | 'WORKER_METRICS_PORT',
  number
>;
let env: NodeJS.ProcessEnv;
let marks: string[];
let clusterDir: string | undefined;
let callWorkflowId: string;
const api = () => `http://127.0.0.1:${ports.PORT}/api/v1`;

beforeAll(async () => {
  checkout = privateCheckout();
  ports = {
    PORT: await freePort(),
    EMBEDDED_POSTGRES_PORT: await freePort(),
    TEMPORAL_PORT: await freePort(),
    TEMPORAL_UI_PORT: await freePort(),
    WORKER_METRICS_PORT: await freePort(),
  };
  env = {
    // Unset: the default data folder inside the private checkout.
    DATA_DIR: '',
    LOG_LEVEL: 'warn',
    TEMPORAL_CLI_PATH: testEnv('temporalCliPath'),
    DATABASE_URL: '',
    TEMPORAL_ADDRESS: '',
    // The simulated person dials the media stream back at this address.
    PUBLIC_BASE_URL: `http://127.0.0.1:${ports.PORT}`,
    ...Object.fromEntries(Object.entries(ports).map(([key, value]) => [key, String(value)])),
  };
  marks = [checkout.root, `--port ${ports.TEMPORAL_PORT} `];
});

afterAll(() => {
  checkout?.remove();
  if (clusterDir) rmSync(dirname(clusterDir), { recursive: true, force: true });
});

it('starts from a private folder, speaks on a simulator call with audio, and stops on Ctrl-C within 15 s', async () => {
  const started = await npmStart(checkout.root, env);
  try {
    const output = started.output();
    clusterDir = /Starting embedded PostgreSQL on port \d+ \(data in (.+)\)/.exec(output)?.[1];
    if (isRoot) {
      expect(clusterDir).toMatch(/^\/var\/lib\/switchboard\//);
      expect(output).toContain('cannot enter');
      marks.push(clusterDir ?? 'no cluster folder');
      // The server runs from the copy of the binaries, not from the closed node_modules.
      expect(output).toContain(`so PostgreSQL runs from a copy of its binaries in ${COPIED_BINARIES_DIR}/`);
      const postmaster = readFileSync(join(clusterDir ?? '', 'postmaster.pid'), 'utf8').split('\n')[0];
      expect(readlinkSync(`/proc/${postmaster}/exe`)).toMatch(
        new RegExp(`^${COPIED_BINARIES_DIR}/[^/]+/bin/postgres$`),
      );
    }
    expect(output).not.toContain('Workflow code unchanged');
    expect(output).toContain(`Temporal UI: http://localhost:${ports.TEMPORAL_UI_PORT}`);
    expect((await fetch(`${api()}/health/ready`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.TEMPORAL_UI_PORT}/`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.WORKER_METRICS_PORT}/metrics`)).status).toBe(200);
    const connection = await Connection.connect({ address: `127.0.0.1:${ports.TEMPORAL_PORT}` });
    const attributes = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    expect(Object.keys(attributes.customAttributes ?? {})).toEqual(
      expect.arrayContaining(['CampaignId', 'OrganizationId', 'AgentId', 'CampaignState']),
    );
    await connection.close();

    // The offline voice came with the two commands: both parties speak and are heard.
    const org = await callingOrganization(`http://127.0.0.1:${ports.PORT}`, {
      ring_seconds: 0,
      talk_seconds: 60,
      audio: true,
    });
    const placed = await fetch(`${api()}/public/agent/${org.triggerPath}`, {
      method: 'POST',
      headers: { 'X-API-Key': org.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ phone_number: '+14155550123' }),
    });
    expect(placed.status).toBe(200);
    const { workflow_run_id: runId } = (await placed.json()) as { workflow_run_id: number };
    callWorkflowId = `call-${runId}`;
    let run: RunDetail | undefined;
    for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
      // A kept-alive connection the server is closing just then resets; the next poll opens another.
      const res = await fetch(`${api()}/workflow/${org.agent.id}/runs/${runId}`, {
        headers: { Authorization: `Bearer ${org.owner.token}` },
      }).catch(() => undefined);
      run = res?.ok ? ((await res.json()) as RunDetail) : run;
      if (run?.is_completed && run.logs.transcript) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const roles = new Set(run?.logs.transcript?.map((line) => line.role));
    expect([...roles].sort()).toEqual(['assistant', 'user']);
  } catch (error) {
    process.stdout.write(`npm start output:\n${started.output()}\n`);
    throw error;
  } finally {
    const stopStarted = Date.now();
    signalGroup(started.child, 'SIGINT');
    await stopped(started.child);
    const seconds = (Date.now() - stopStarted) / 1000;
    process.stdout.write(`npm start: ready in ${started.readySeconds} s, stopped by Ctrl-C in ${seconds} s\n`);
    expect(seconds).toBeLessThan(15);
    expect(started.output()).toContain('[start] Stopped.');
  }
  await expectNothingLeft(marks, Object.values(ports), 0);
}, 400_000);

it('keeps its data across a restart, and leaves nothing running when its group is killed with SIGKILL', async () => {
  const started = await npmStart(checkout.root, env);
  try {
    expect(started.output()).not.toContain('Applied migrations');
    expect(started.output()).not.toContain('Registered search attributes');
    // Nothing of the workflow code changed: the first start's bundle is loaded, webpack does not run.
    expect(started.output()).toContain('Workflow code unchanged since the last bundle');
    const client = new Client({
      connection: await Connection.connect({ address: `127.0.0.1:${ports.TEMPORAL_PORT}` }),
      dataConverter: testDataConverter,
    });
    expect((await client.workflow.getHandle(callWorkflowId).describe()).status.name).toBe('COMPLETED');
    await client.connection.close();
    const pg = new PgClient({
      connectionString: `postgres://switchboard:switchboard@127.0.0.1:${ports.EMBEDDED_POSTGRES_PORT}/switchboard`,
    });
    await pg.connect();
    const users = await pg.query('SELECT count(*)::int AS n FROM users');
    await pg.end();
    expect(users.rows[0].n).toBeGreaterThan(0);
  } finally {
    signalGroup(started.child, 'SIGKILL');
    await stopped(started.child);
  }
  await expectNothingLeft(marks, Object.values(ports), 10_000);
}, 400_000);

it('starts again on the same data after being killed, and refuses a port that a leftover holds', async () => {
  const again = await npmStart(checkout.root, env);
  const exit = stopped(again.child);
  signalGroup(again.child, 'SIGTERM');
  await exit;
  expect(again.output()).toContain('[start] Stopped.');

  // Something else on the API's port is named, never mistaken for the API.
  const squatter: Server = createServer();
  await new Promise<void>((resolve) => squatter.listen(ports.PORT, resolve));
  try {
    await expect(npmStart(checkout.root, env)).rejects.toThrow(
      new RegExp(`Port ${ports.PORT}, for the API, is already in use by process ${process.pid} `),
    );
  } finally {
    squatter.close();
  }
  await expectNothingLeft(marks, Object.values(ports), 10_000);
}, 400_000);

it("runs a test file that needs PostgreSQL with the clone's own jest", async () => {
  // A clean environment, as in a terminal: nothing of this run's servers or workers.
  const cleanEnv = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('SWITCHBOARD_TEST_') && !key.startsWith('JEST_')),
  );
  const { status, output } = await new Promise<{ status: string; output: string }>((resolve) => {
    const child = execFile(
      'npm',
      ['run', 'test:jest', '--', 'test/entities/login-throttle-migration.test.ts'],
      {
        cwd: checkout.root,
        env: { ...cleanEnv, TEMPORAL_CLI_PATH: testEnv('temporalCliPath') },
        timeout: 240_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ status: error ? `failed (${error.code ?? error.signal})` : 'passed', output: stdout + stderr }),
    );
    child.stdin?.end();
  });
  if (status !== 'passed') process.stdout.write(`jest output:\n${output}\n`);
  expect(status).toBe('passed');
  expect(output).toMatch(/Tests:\s+1 passed, 1 total/);
  if (isRoot) expect(output).toContain(`so PostgreSQL runs from a copy of its binaries in ${COPIED_BINARIES_DIR}/`);
  await expectNothingLeft(marks, [], 10_000);
}, 300_000);
