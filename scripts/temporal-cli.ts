import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isExecutable, onPath } from './executables';

export const TEMPORAL_CLI_VERSION = '1.5.1';
/** The newest CLI tag that `go install pkg@version` accepts (later tags carry a `replace`). */
const MODULE = `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`;
const MIN_GO = [1, 25] as const;

/** Where the one-time build lands: outside the repo, shared by every clone on the machine. */
export const cacheDir = (env: NodeJS.ProcessEnv = process.env): string =>
  join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'switchboard', `temporal-cli-v${TEMPORAL_CLI_VERSION}`);

export type TemporalExecutable =
  { type: 'existing-path'; path: string; source: string } | { type: 'cached-download'; source: string };

function goVersion(env: NodeJS.ProcessEnv): [number, number] | undefined {
  try {
    const out = execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8', env }).trim(); // "go1.26.8"
    const match = /^go(\d+)\.(\d+)/.exec(out);
    return match ? [Number(match[1]), Number(match[2])] : undefined;
  } catch {
    return undefined;
  }
}

/** Builds the official CLI with the Go toolchain into the cache; shows Go's progress. */
async function buildWithGo(log: (line: string) => void, env: NodeJS.ProcessEnv): Promise<string> {
  const dir = cacheDir(env);
  mkdirSync(dir, { recursive: true });
  log(`Building the Temporal CLI v${TEMPORAL_CLI_VERSION} once into ${dir} (a few minutes on 2 cores)...`);
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      'go',
      [
        'install',
        '-x',
        '-ldflags',
        `-s -w -X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`,
        MODULE,
      ],
      {
        // A neutral working directory: go install pkg@version must not see a go.mod of ours.
        cwd: dir,
        env: { ...env, GOBIN: dir, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
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
      else reject(new Error(`go install ${MODULE} failed (exit ${code}):\n${tail}`));
    });
  });
  log(`Built the Temporal CLI in ${Math.round((Date.now() - started) / 1000)} s.`);
  return join(dir, 'temporal');
}

/**
 * Finds the Temporal CLI, in order: TEMPORAL_CLI_PATH, `temporal` on PATH, the cache, a Go build
 * into the cache, and last the SDK's own download (which needs internet access).
 */
export async function provisionTemporalCli(
  log: (line: string) => void = console.log,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TemporalExecutable> {
  const explicit = env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (!isExecutable(explicit)) throw new Error(`TEMPORAL_CLI_PATH=${explicit} is not an executable file.`);
    return { type: 'existing-path', path: explicit, source: 'TEMPORAL_CLI_PATH' };
  }
  const fromPath = onPath('temporal', env);
  if (fromPath) return { type: 'existing-path', path: fromPath, source: 'PATH' };

  const cached = join(cacheDir(env), 'temporal');
  if (isExecutable(cached)) return { type: 'existing-path', path: cached, source: 'cache' };

  const go = goVersion(env);
  if (go && (go[0] > MIN_GO[0] || (go[0] === MIN_GO[0] && go[1] >= MIN_GO[1]))) {
    return { type: 'existing-path', path: await buildWithGo(log, env), source: 'go install' };
  }
  log(
    go
      ? `Go ${go.join('.')} is older than ${MIN_GO.join('.')}, so the Temporal CLI cannot be built here.`
      : 'Go is not installed, so the Temporal CLI cannot be built here.',
  );
  log(
    'Falling back to the Temporal SDK download (needs internet). If it fails, install Go >= 1.25 ' +
      `(then run \`npm run temporal:cli\`) or set TEMPORAL_CLI_PATH to a Temporal CLI v${TEMPORAL_CLI_VERSION} binary.`,
  );
  return { type: 'cached-download', source: 'SDK download' };
}

if (require.main === module) {
  provisionTemporalCli()
    .then((exe) => console.log(exe.type === 'existing-path' ? exe.path : 'SDK download (no local binary)'))
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
