import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isExecutable } from './executables';
import { goEnv, goInstall, goUnusable, MIN_GO_VERSION, switchboardCacheDir } from './go-install';

const root = join(__dirname, '..');
const SERVER_MODULE = 'go.temporal.io/server';

/**
 * The server version, named once: the default of `${TEMPORAL_VERSION:-x}` in docker-compose.yml,
 * so that compose's image tag and the cluster's binaries cannot drift apart.
 */
export function temporalServerVersion(composeFile = join(root, 'docker-compose.yml')): string {
  const match = /\$\{TEMPORAL_VERSION:-(\d+\.\d+\.\d+)\}/.exec(readFileSync(composeFile, 'utf8'));
  if (!match?.[1]) throw new Error(`${composeFile} names no \${TEMPORAL_VERSION:-x.y.z} default for the server image.`);
  return match[1];
}

/** The server, its SQL schema tool and the schema files, as the admin-tools image lays them out. */
export interface TemporalServerBinaries {
  version: string;
  server: string;
  sqlTool: string;
  /** Holds `postgresql/v12/{temporal,visibility}/versioned`, like /etc/temporal/schema in the image. */
  schemaDir: string;
}

export const serverCacheDir = (version: string, env: NodeJS.ProcessEnv = process.env): string =>
  switchboardCacheDir(`temporal-server-v${version}`, env);

function binariesIn(dir: string, version: string): TemporalServerBinaries {
  return {
    version,
    server: join(dir, 'temporal-server'),
    sqlTool: join(dir, 'temporal-sql-tool'),
    schemaDir: join(dir, 'schema'),
  };
}

const complete = (b: TemporalServerBinaries): boolean =>
  isExecutable(b.server) && isExecutable(b.sqlTool) && existsSync(join(b.schemaDir, 'postgresql', 'v12'));

/**
 * The official Temporal server and SQL tool at the version compose names, built once with Go into
 * the cache (a few minutes on 2 cores); the schema files are copied from the downloaded module.
 */
export async function provisionTemporalServer(
  log: (line: string) => void = console.log,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TemporalServerBinaries> {
  const version = temporalServerVersion();
  const dir = serverCacheDir(version, env);
  const binaries = binariesIn(dir, version);
  if (complete(binaries)) return binaries;

  const unusable = goUnusable(env);
  if (unusable) {
    throw new Error(
      `${unusable}, so the Temporal server v${version} cannot be built here. Install Go >= ${MIN_GO_VERSION} ` +
        `(Debian: golang-go from bookworm-backports, or go.dev/dl) and run \`npm run temporal:server\`, or run ` +
        `the server elsewhere (docker compose) and point TEMPORAL_ADDRESS at it.`,
    );
  }
  const buildDir = join(dir, '.build');
  mkdirSync(buildDir, { recursive: true });
  log(`Building the Temporal server v${version} and its SQL tool once into ${dir} (several minutes on 2 cores)...`);
  await goInstall(
    [`${SERVER_MODULE}/cmd/server@v${version}`, `${SERVER_MODULE}/cmd/tools/sql@v${version}`],
    buildDir,
    log,
    env,
  );

  const moduleCache = goEnv('GOMODCACHE', env);
  const schemaSource = moduleCache && join(moduleCache, `${SERVER_MODULE}@v${version}`, 'schema', 'postgresql');
  if (!schemaSource || !existsSync(schemaSource)) {
    throw new Error(`The server module's schema files are missing from the Go module cache (${schemaSource}).`);
  }
  rmSync(binaries.schemaDir, { recursive: true, force: true });
  cpSync(schemaSource, join(binaries.schemaDir, 'postgresql'), { recursive: true });
  // The binaries last: their presence is what marks the cache complete.
  renameSync(join(buildDir, 'sql'), binaries.sqlTool);
  renameSync(join(buildDir, 'server'), binaries.server);
  rmSync(buildDir, { recursive: true, force: true });
  return binaries;
}

if (require.main === module) {
  provisionTemporalServer()
    .then((b) => console.log(`${b.server}\n${b.sqlTool}\n${b.schemaDir}`))
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
