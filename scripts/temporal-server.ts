import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isExecutable } from './executables';

const root = join(__dirname, '..');
/** Go's minimum for the server module (its go.mod says `go 1.25.7`). */
const MIN_GO = [1, 25] as const;
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

/** Where the one-time build lands: outside the repo, shared by every clone on the machine. */
export function serverCacheDir(version: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'switchboard', `temporal-server-v${version}`);
}

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

function goEnv(name: string, env: NodeJS.ProcessEnv): string | undefined {
  try {
    return execFileSync('go', ['env', name], { encoding: 'utf8', env }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function goVersion(env: NodeJS.ProcessEnv): [number, number] | undefined {
  const match = /^go(\d+)\.(\d+)/.exec(goEnv('GOVERSION', env) ?? '');
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

/** `go install` of the server and the SQL tool into `buildDir`, Go's progress shown as it goes. */
async function goInstall(
  version: string,
  buildDir: string,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const packages = [`${SERVER_MODULE}/cmd/server@v${version}`, `${SERVER_MODULE}/cmd/tools/sql@v${version}`];
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', ['install', '-x', '-ldflags', '-s -w', ...packages], {
      // A neutral working directory: go install pkg@version must not see a go.mod of ours.
      cwd: buildDir,
      env: { ...env, GOBIN: buildDir, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let compiled = 0;
    let tail = '';
    const ticker = setInterval(
      () => log(`  ...still building (${Math.round((Date.now() - started) / 1000)} s, ${compiled} packages compiled)`),
      15_000,
    );
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-4000);
      for (const line of chunk.split('\n')) {
        if (line.startsWith('go: downloading')) log(`  ${line}`);
        if (line.includes('/compile ')) compiled += 1;
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(ticker);
      if (code === 0) resolve();
      else reject(new Error(`go install ${packages.join(' ')} failed (exit ${code}):\n${tail}`));
    });
  });
  log(`Built the Temporal server and SQL tool in ${Math.round((Date.now() - started) / 1000)} s.`);
}

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

  const go = goVersion(env);
  if (!go || go[0] < MIN_GO[0] || (go[0] === MIN_GO[0] && go[1] < MIN_GO[1])) {
    throw new Error(
      `${go ? `Go ${go.join('.')} is older than ${MIN_GO.join('.')}` : 'Go is not installed'}, so the ` +
        `Temporal server v${version} cannot be built here. Install Go >= ${MIN_GO.join('.')} (Debian: ` +
        `golang-go from bookworm-backports, or go.dev/dl) and run \`npm run temporal:server\`, or run ` +
        `the server elsewhere (docker compose) and point TEMPORAL_ADDRESS at it.`,
    );
  }
  const buildDir = join(dir, '.build');
  mkdirSync(buildDir, { recursive: true });
  log(`Building the Temporal server v${version} and its SQL tool once into ${dir} (several minutes on 2 cores)...`);
  await goInstall(version, buildDir, log, env);

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
