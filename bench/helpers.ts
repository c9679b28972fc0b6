import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDataSource } from '../entities/data-source';
import type { Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { ENCRYPTED_ENCODING, FAILURE_CONVERTER_PATH, temporalDataConverter } from '../platform/payload-codec';
import { startEmbeddedPostgres, type RunningPostgres } from '../scripts/embedded-postgres';
import { runMigrations } from '../scripts/migrate';
import { freePort } from '../scripts/free-port';

/** Pieces every benchmark shares: a migrated PostgreSQL, the real API process, an API key. */

export const HOST = '127.0.0.1';
export const ADMIN = { email: 'bench@example.com', password: 'bench password' };

export const say = (line: string) => console.log(`[bench] ${line}`);

/** The payload codec's key of every process a bench starts, as production requires one. */
export const BENCH_PAYLOAD_ENCRYPTION_KEYS = `bench:${randomBytes(32).toString('base64')}`;
/** The bench's own Temporal clients encrypt and decrypt with the processes' key. */
export const benchDataConverter = temporalDataConverter({
  NODE_ENV: 'production',
  PAYLOAD_ENCRYPTION_KEYS: BENCH_PAYLOAD_ENCRYPTION_KEYS,
});

/**
 * Whether the services a bench starts encrypt Temporal's payloads (`encrypted`, as production
 * always does) or pass them through (`plain`: the baseline of the codec's cost, for benches only).
 */
export type PayloadMode = 'encrypted' | 'plain';
export const PAYLOAD_MODES: readonly PayloadMode[] = ['encrypted', 'plain'];

/** The bench's own clients in a `plain` phase: the service's converter without the codec. */
export const plainDataConverter: DataConverter = { failureConverterPath: FAILURE_CONVERTER_PATH };

export const dataConverterFor = (payloads: PayloadMode): DataConverter =>
  payloads === 'plain' ? plainDataConverter : benchDataConverter;

/** The node arguments after `--import tsx` that run a service's `entry` point in `payloads` mode. */
export const entryArgs = (entry: string, payloads: PayloadMode): string[] =>
  payloads === 'plain' ? [join(__dirname, 'without-payload-codec.ts'), entry] : [entry];

/**
 * The phases a bench runs, from `BENCH_PAYLOADS` (`plain,encrypted,plain,encrypted` alternates, so
 * that a drift of the shared machine's load falls on both); `encrypted` alone by default.
 */
export function payloadPhases(): PayloadMode[] {
  const phases = (process.env.BENCH_PAYLOADS ?? 'encrypted').split(',').map((phase) => phase.trim());
  const unknown = phases.filter((phase) => !(PAYLOAD_MODES as readonly string[]).includes(phase));
  if (phases.length === 0 || unknown.length > 0) {
    throw new Error(`BENCH_PAYLOADS lists ${PAYLOAD_MODES.join(' or ')}, comma-separated (got ${unknown.join(', ')})`);
  }
  return phases as PayloadMode[];
}

/**
 * How Temporal stored the input of `workflowId`, read raw from its history (no codec): proof that
 * a phase ran in the payload mode it says.
 */
export async function storedInputEncoding(connection: Connection, workflowId: string): Promise<PayloadMode> {
  const { history } = await connection.workflowService.getWorkflowExecutionHistory({
    namespace: 'default',
    execution: { workflowId },
    maximumPageSize: 1,
  });
  const payload = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const encoding = payload?.metadata?.encoding;
  if (!encoding) throw new Error(`${workflowId} has no stored input`);
  return new TextDecoder().decode(encoding) === ENCRYPTED_ENCODING ? 'encrypted' : 'plain';
}

export interface Database {
  url: string;
  stop(): Promise<void>;
}

/** DATABASE_URL when set, else an embedded PostgreSQL in a temporary directory removed on stop. */
export async function startDatabase(): Promise<Database> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: () => Promise.resolve() };
  // PostgreSQL runs as the `postgres` user when we are root: it must be able to enter the directory.
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  chmodSync(dir, 0o755);
  const postgres: RunningPostgres = await startEmbeddedPostgres({
    dataDir: join(dir, 'postgres'),
    port: await freePort(),
    user: 'bench',
    password: 'bench',
    database: 'bench',
  });
  return {
    url: postgres.url,
    async stop() {
      await postgres.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function migrate(url: string): Promise<void> {
  const dataSource = createDataSource({ url, applicationName: 'bench-migrate' });
  await dataSource.initialize();
  try {
    await runMigrations(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

const API_START_TIMEOUT_MS = 180_000;

export interface RunningApi {
  base: string;
  /** The API process, for CPU and memory accounting. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * The API from its real entry point (api/main.ts) in production mode, on 127.0.0.1 only, logs
 * discarded. Temporal is never reached by the benchmarked routes, so its address is a closed port
 * unless `env` names one; `env` overrides any variable set here. `nodeArgs` go to node (`--cpu-prof`);
 * `payloads` 'plain' runs it without the payload codec (the codec's baseline).
 */
export async function startApi(
  databaseUrl: string,
  env: NodeJS.ProcessEnv = {},
  nodeArgs: string[] = [],
  payloads: PayloadMode = 'encrypted',
): Promise<RunningApi> {
  const port = await freePort();
  const base = `http://${HOST}:${port}`;
  const entry = join(__dirname, '..', 'api', 'main.ts');
  const api: ChildProcess = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', ...entryArgs(entry, payloads)], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: `${HOST}:1`,
      // Providers reach the API (webhooks, media streams) where the bench started it.
      PUBLIC_BASE_URL: base,
      SESSION_SECRET: randomBytes(32).toString('base64url'),
      SECRETS_KEY: randomBytes(32).toString('hex'),
      PAYLOAD_ENCRYPTION_KEYS: BENCH_PAYLOAD_ENCRYPTION_KEYS,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      // Production turns the simulator off; the benchmarks call through it.
      TELEPHONY_SIMULATOR: 'true',
      // A bench dials its numbers far more often than a carrier's callee should be called.
      DIAL_CAP_PER_DAY: '0',
      DIAL_CAP_PER_WEEK: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = async () => {
    if (api.exitCode !== null) return;
    api.kill('SIGTERM');
    await once(api, 'exit');
  };
  // Generous: on a machine shared with other jobs, loading the API's code alone can take a minute.
  const deadline = Date.now() + API_START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (api.exitCode !== null) throw new Error(`the API exited with code ${api.exitCode}`);
    const ok = await fetch(`${base}/api/v1/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return { base, pid: api.pid, stop };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stop();
  throw new Error(`the API did not answer within ${seconds(API_START_TIMEOUT_MS)}`);
}

export async function postJson<T>(url: string, body: object, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** Logs in (as the first-run admin, created by the API at start, unless `account` is given) and creates an API key. */
export async function createApiKey(
  base: string,
  account: { email: string; password: string } = ADMIN,
): Promise<string> {
  const { token } = await postJson<{ token: string }>(`${base}/api/v1/auth/login`, account);
  const { api_key } = await postJson<{ api_key: string }>(
    `${base}/api/v1/user/api-keys`,
    { name: 'bench' },
    { Authorization: `Bearer ${token}` },
  );
  return api_key;
}

/** Milliseconds of CPU summed over every process. */
export const totalCpuMs = (cpu: Record<string, number>): number => Object.values(cpu).reduce((sum, ms) => sum + ms, 0);

/**
 * The payload phases' verdict: for each measure, its mean over the plain phases against its mean
 * over the encrypted ones, and the difference (the codec's cost when the machine held still).
 */
export function printPayloadMeans<Phase extends { payloads: PayloadMode }>(
  phases: Phase[],
  measures: readonly (readonly [label: string, pick: (phase: Phase) => number])[],
): void {
  const mean = (mode: PayloadMode, pick: (phase: Phase) => number) => {
    const picked = phases.filter((phase) => phase.payloads === mode).map(pick);
    return picked.length === 0 ? NaN : picked.reduce((sum, value) => sum + value, 0) / picked.length;
  };
  for (const [label, pick] of measures) {
    const plain = mean('plain', pick);
    const encrypted = mean('encrypted', pick);
    console.log(
      `  mean CPU per ${label}: plain ${plain.toFixed(1)} ms, encrypted ${encrypted.toFixed(1)} ms ` +
        `(${encrypted - plain >= 0 ? '+' : ''}${(encrypted - plain).toFixed(1)} ms)`,
    );
  }
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The shortest answered call: a greeting that needs `first_name`, then the end node; an API trigger. */
const AGENT_DEFINITION = {
  nodes: [
    {
      id: 'start',
      type: 'startCall',
      position: { x: 0, y: 0 },
      data: { name: 'Start', prompt: 'Hello {{first_name}}, this is a reminder of your appointment tomorrow.' },
    },
    { id: 'end', type: 'endCall', position: { x: 0, y: 100 }, data: { name: 'End', prompt: 'Say goodbye.' } },
    { id: 'api', type: 'trigger', position: { x: 200, y: 0 }, data: { name: 'API trigger' } },
  ],
  edges: [{ id: 'e1', source: 'start', target: 'end', data: { label: 'Done', condition: 'They confirmed' } }],
};

export interface Organization {
  apiKey: string;
  /** The agent's id (`workflow_id` of a campaign). */
  agentId: number;
  triggerPath: string;
  /** The default outbound simulator configuration. */
  configurationId: number;
}

/**
 * Through the API: an API key, the agent above, and a default outbound simulator configuration
 * (`ring_seconds` = `talk_seconds` = 0 unless `simulator` says otherwise, so a call costs only the
 * service's own work) with a caller number. The admin's organization, or a new one signed up for
 * `account`.
 */
export async function setUpOrganization(
  base: string,
  options: {
    account?: { email: string; password: string };
    simulator?: { ring_seconds: number; talk_seconds: number };
  } = {},
): Promise<Organization> {
  if (options.account) await postJson(`${base}/api/v1/auth/signup`, options.account);
  const apiKey = await createApiKey(base, options.account);
  const headers = { 'X-API-Key': apiKey };
  const agent = await postJson<{ id: number; workflow_definition: typeof AGENT_DEFINITION }>(
    `${base}/api/v1/workflow/create/definition`,
    { name: 'Bench agent', workflow_definition: AGENT_DEFINITION },
    headers,
  );
  const triggerPath = agent.workflow_definition.nodes.find((node) => node.type === 'trigger')?.data as
    { trigger_path?: string } | undefined;
  if (!triggerPath?.trigger_path) throw new Error('the agent has no trigger path');
  const configuration = await postJson<{ id: number }>(
    `${base}/api/v1/organizations/telephony-configs`,
    {
      name: 'simulator',
      config: { provider: 'simulator', ...(options.simulator ?? { ring_seconds: 0, talk_seconds: 0 }) },
    },
    headers,
  );
  await postJson(
    `${base}/api/v1/organizations/telephony-configs/${configuration.id}/set-default-outbound`,
    {},
    headers,
  );
  await postJson(
    `${base}/api/v1/organizations/telephony-configs/${configuration.id}/phone-numbers`,
    { address: '+14155550100' },
    headers,
  );
  return { apiKey, agentId: agent.id, triggerPath: triggerPath.trigger_path, configurationId: configuration.id };
}
