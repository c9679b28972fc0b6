import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { isExecutable, onPath } from './executables';
import { goInstall, goUnusable, MIN_GO_VERSION, switchboardCacheDir } from './go-install';

export const TEMPORAL_CLI_VERSION = '1.5.1';
/** The newest CLI tag that `go install pkg@version` accepts (later tags carry a `replace`). */
const MODULE = `github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`;

export const cacheDir = (env: NodeJS.ProcessEnv = process.env): string =>
  switchboardCacheDir(`temporal-cli-v${TEMPORAL_CLI_VERSION}`, env);

export type TemporalExecutable =
  { type: 'existing-path'; path: string; source: string } | { type: 'cached-download'; source: string };

/** Builds the official CLI with the Go toolchain into the cache; shows Go's progress. */
async function buildWithGo(log: (line: string) => void, env: NodeJS.ProcessEnv): Promise<string> {
  const dir = cacheDir(env);
  mkdirSync(dir, { recursive: true });
  log(`Building the Temporal CLI v${TEMPORAL_CLI_VERSION} once into ${dir} (a few minutes on 2 cores)...`);
  await goInstall(
    [MODULE],
    dir,
    log,
    env,
    `-s -w -X github.com/temporalio/cli/temporalcli.Version=${TEMPORAL_CLI_VERSION}`,
  );
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

  const unusable = goUnusable(env);
  if (!unusable) return { type: 'existing-path', path: await buildWithGo(log, env), source: 'go install' };
  log(`${unusable}, so the Temporal CLI cannot be built here.`);
  log(
    `Falling back to the Temporal SDK download (needs internet). If it fails, install Go >= ${MIN_GO_VERSION} ` +
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
