import { spawn, type ChildProcess } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { createServer } from 'node:net';
import { Connection } from '@temporalio/client';
import { provisionTemporalCli } from './temporal-cli';
import { waitForTemporal } from './temporal-dev-server';
import { provisionTemporalServer, type TemporalServerBinaries } from './temporal-server';
import { exitWithin, spawnTethered } from './tethered-spawn';

/**
 * The pieces of a self-hosted Temporal server on PostgreSQL, run from the files compose also uses:
 * deploy/temporal/setup-schema.sh (databases and schemas), deploy/temporal/config.yaml (the
 * server) and deploy/temporal/create-namespace.sh (namespace and search attributes).
 */
export const TEMPORAL_DEPLOY_DIR = join(__dirname, '..', 'deploy', 'temporal');
export const TEMPORAL_CONFIG_FILE = join(TEMPORAL_DEPLOY_DIR, 'config.yaml');
export const DYNAMIC_CONFIG_FILE = join(TEMPORAL_DEPLOY_DIR, 'dynamicconfig', 'development-sql.yaml');

export interface PostgresAddress {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** Temporal's two databases; other names let several servers share one PostgreSQL (tests). */
export interface TemporalDatabases {
  main: string;
  visibility: string;
}
export const DEFAULT_TEMPORAL_DATABASES: TemporalDatabases = { main: 'temporal', visibility: 'temporal_visibility' };

/** Where Temporal's databases go: the server and user of a PostgreSQL URL (the user needs CREATEDB). */
export function postgresAddress(url: string): PostgresAddress {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  };
}

/** Every port the four services listen on; all on 127.0.0.1. */
export interface TemporalPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

const UPSTREAM_PORTS: TemporalPorts = {
  frontend: 7233,
  frontendHttp: 7243,
  frontendMembership: 6933,
  history: 7234,
  historyMembership: 6934,
  matching: 7235,
  matchingMembership: 6935,
  worker: 7239,
  workerMembership: 6939,
};

/**
 * Upstream's ports, all moved by as much as the frontend's: 7233 gives upstream's own, and one
 * setting (TEMPORAL_PORT) moves the whole server out of another's way.
 */
export function temporalPortsFrom(frontend = UPSTREAM_PORTS.frontend): TemporalPorts {
  const shift = frontend - UPSTREAM_PORTS.frontend;
  const ports = Object.fromEntries(
    Object.entries(UPSTREAM_PORTS).map(([service, port]) => [service, port + shift]),
  ) as unknown as TemporalPorts;
  // Temporal stores membership ports in a SQL smallint.
  const outOfRange = Object.values(ports).filter((port) => port < 1 || port > 32_767);
  if (outOfRange.length > 0) {
    throw new Error(
      `TEMPORAL_PORT ${frontend} puts the server's ports at ${outOfRange.join(', ')}; ` +
        `choose one from 301 to 33,067, which keeps every port from 1 to 32,767.`,
    );
  }
  return ports;
}

/**
 * A port free right now below 32768: Temporal stores membership ports as a SQL smallint, and ports
 * outside Linux's ephemeral range cannot be taken meanwhile by some process's outgoing connection.
 */
export async function freeLowPort(taken: Set<number> = new Set()): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (!taken.has(port) && (await portIsFree(port))) return port;
  }
}

const portIsFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A frontend port below 32768 whose moved ports (`temporalPortsFrom`) are all free right now. */
export async function freeTemporalFrontendPort(): Promise<number> {
  for (;;) {
    const frontend = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await Promise.all(Object.values(temporalPortsFrom(frontend)).map(portIsFree));
    if (free.every(Boolean)) return frontend;
  }
}

/** Ports free right now, so that several servers (tests) can run on one machine. */
export async function freeTemporalPorts(): Promise<TemporalPorts> {
  const ports = { ...UPSTREAM_PORTS };
  const taken = new Set<number>();
  for (const key of Object.keys(ports) as (keyof TemporalPorts)[]) {
    ports[key] = await freeLowPort(taken);
    taken.add(ports[key]);
  }
  return ports;
}

/** Runs a POSIX shell script, each output line to `log`; rejects with the last lines on failure. */
function runScript(script: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', [script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        tail = (tail + chunk).slice(-4000);
        for (const line of chunk.split('\n')) if (line.trim()) log(line.trimEnd());
      });
    }
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${script} failed (exit ${code}):\n${tail}`)),
    );
  });
}

/** The `temporal` and `temporal_visibility` databases and schemas, by compose's schema script. */
export function setupTemporalSchemas(
  binaries: TemporalServerBinaries,
  postgres: PostgresAddress,
  log: (line: string) => void,
  databases = DEFAULT_TEMPORAL_DATABASES,
): Promise<void> {
  return runScript(
    join(TEMPORAL_DEPLOY_DIR, 'setup-schema.sh'),
    {
      PATH: process.env.PATH,
      SQL_TOOL: binaries.sqlTool,
      SCHEMA_DIR: binaries.schemaDir,
      POSTGRES_SEEDS: postgres.host,
      DB_PORT: String(postgres.port),
      POSTGRES_USER: postgres.user,
      SQL_PASSWORD: postgres.password,
      DBNAME: databases.main,
      VISIBILITY_DBNAME: databases.visibility,
    },
    log,
  );
}

/** Command line and environment of the server on the committed config. */
export function temporalServerCommand(
  binaries: TemporalServerBinaries,
  postgres: PostgresAddress,
  ports: TemporalPorts,
  options: {
    logLevel?: string;
    databases?: TemporalDatabases;
    numHistoryShards?: number;
    dynamicConfigFile?: string;
  } = {},
): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const databases = options.databases ?? DEFAULT_TEMPORAL_DATABASES;
  return {
    command: binaries.server,
    args: ['--config-file', TEMPORAL_CONFIG_FILE, '--allow-no-auth', 'start'],
    env: {
      PATH: process.env.PATH,
      LOG_LEVEL: options.logLevel ?? 'warn',
      DBNAME: databases.main,
      VISIBILITY_DBNAME: databases.visibility,
      POSTGRES_SEEDS: postgres.host,
      DB_PORT: String(postgres.port),
      POSTGRES_USER: postgres.user,
      POSTGRES_PWD: postgres.password,
      DYNAMIC_CONFIG_FILE_PATH: options.dynamicConfigFile ?? DYNAMIC_CONFIG_FILE,
      ...(options.numHistoryShards ? { NUM_HISTORY_SHARDS: String(options.numHistoryShards) } : {}),
      BIND_ON_IP: '127.0.0.1',
      FRONTEND_GRPC_PORT: String(ports.frontend),
      FRONTEND_HTTP_PORT: String(ports.frontendHttp),
      FRONTEND_MEMBERSHIP_PORT: String(ports.frontendMembership),
      HISTORY_GRPC_PORT: String(ports.history),
      HISTORY_MEMBERSHIP_PORT: String(ports.historyMembership),
      MATCHING_GRPC_PORT: String(ports.matching),
      MATCHING_MEMBERSHIP_PORT: String(ports.matchingMembership),
      WORKER_GRPC_PORT: String(ports.worker),
      WORKER_MEMBERSHIP_PORT: String(ports.workerMembership),
    },
  };
}

/**
 * The namespace and our search attributes, by compose's own job script, with the `temporal` CLI
 * at `cliPath` on its PATH.
 */
export function registerNamespace(
  cliPath: string,
  address: string,
  namespace: string,
  log: (line: string) => void,
  settleSeconds = 15,
): Promise<void> {
  return runScript(
    join(TEMPORAL_DEPLOY_DIR, 'create-namespace.sh'),
    {
      PATH: [dirname(cliPath), process.env.PATH].join(delimiter),
      HOME: process.env.HOME,
      TEMPORAL_ADDRESS: address,
      DEFAULT_NAMESPACE: namespace,
      SETTLE_SECONDS: String(settleSeconds),
    },
    log,
  );
}

/** The history shard count the Temporal cluster at `address` was created with, which it keeps. */
export async function historyShardCount(address: string): Promise<number> {
  const connection = await Connection.connect({ address });
  try {
    return (await connection.workflowService.getClusterInfo({})).historyShardCount;
  } finally {
    await connection.close();
  }
}

/** What to tell an operator whose NUM_HISTORY_SHARDS differs from the count the cluster keeps; undefined when equal. */
export function shardCountMismatch(configured: number, kept: number): string | undefined {
  if (configured === kept) return undefined;
  return (
    `NUM_HISTORY_SHARDS is ${configured}, but this Temporal cluster was created with ${kept} history shards and ` +
    `keeps them: the setting only takes effect on new databases (a new Temporal cluster). Set it back to ${kept} ` +
    'to silence this.'
  );
}

export interface RunningTemporalServer {
  /** host:port of the frontend. */
  address: string;
  /** The server process (setpriv execs it in place), for CPU accounting and exit watching. */
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface TemporalServerOptions {
  /** The PostgreSQL the server keeps its databases on; its user needs CREATEDB. */
  databaseUrl: string;
  ports: TemporalPorts;
  namespace: string;
  log: (line: string) => void;
  databases?: TemporalDatabases;
  /** The server's own log level (default warn); its lines go to `log` prefixed with `temporal:`. */
  logLevel?: string;
  /** Kept from the first start of these databases on (NUM_HISTORY_SHARDS); unset: the config's default. */
  numHistoryShards?: number;
}

/**
 * The whole sequence of `npm run start:cluster` for Temporal, in one place so that the benchmarks
 * run the same server: the binaries (built once), the schemas by compose's script, the server on
 * the committed config, tethered to this process, then the namespace and search attributes by
 * compose's script. Rejects, with the server stopped, when any step fails.
 */
export async function startTemporalServer(options: TemporalServerOptions): Promise<RunningTemporalServer> {
  const { log } = options;
  const [binaries, cli] = await Promise.all([provisionTemporalServer(log), provisionTemporalCli(log)]);
  if (cli.type !== 'existing-path') {
    throw new Error('The namespace script needs a local Temporal CLI: npm run temporal:cli');
  }
  const postgres = postgresAddress(options.databaseUrl);
  log(`Temporal schemas on ${postgres.host}:${postgres.port} (deploy/temporal/setup-schema.sh)`);
  // The SQL tool logs every file it applies; its failure output comes with the error anyway.
  await setupTemporalSchemas(
    binaries,
    postgres,
    (line) => line.startsWith('[schema]') && log(`  ${line}`),
    options.databases,
  );

  const { command, args, env } = temporalServerCommand(binaries, postgres, options.ports, options);
  log(
    `Starting the Temporal server v${binaries.version} on port ${options.ports.frontend} (deploy/temporal/config.yaml)`,
  );
  const { child } = spawnTethered(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], deathSignal: 'SIGTERM' });
  let stopping = false;
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      // A stopping server warns about every peer it can no longer reach: noise, once asked to stop.
      if (stopping) return;
      for (const line of chunk.split('\n')) if (line.trim()) log(`temporal: ${line.trimEnd()}`);
    });
  }
  const stop = async () => {
    stopping = true;
    child.kill('SIGTERM');
    if (!(await exitWithin(child, 20_000))) child.kill('SIGKILL');
  };
  const address = `127.0.0.1:${options.ports.frontend}`;
  try {
    await waitForTemporal(address, 120_000);
    log('Namespace and search attributes (deploy/temporal/create-namespace.sh)');
    await registerNamespace(cli.path, address, options.namespace, (line) => log(`  ${line}`));
    if (options.numHistoryShards !== undefined) {
      const mismatch = shardCountMismatch(options.numHistoryShards, await historyShardCount(address));
      if (mismatch) log(mismatch);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { address, process: child, stop };
}
