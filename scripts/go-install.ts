import { execFileSync, spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Go's minimum for the Temporal modules built here (their go.mod files say `go 1.25.x`). */
const MIN_GO = [1, 25] as const;

/** Where one-time builds land: outside the repo, shared by every clone on the machine. */
export const switchboardCacheDir = (name: string, env: NodeJS.ProcessEnv = process.env): string =>
  join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'switchboard', name);

export function goEnv(name: string, env: NodeJS.ProcessEnv): string | undefined {
  try {
    return execFileSync('go', ['env', name], { encoding: 'utf8', env }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Why Go cannot build the Temporal modules here ("Go is not installed", "Go 1.19 is older than 1.25"), or undefined when it can. */
export function goUnusable(env: NodeJS.ProcessEnv): string | undefined {
  const match = /^go(\d+)\.(\d+)/.exec(goEnv('GOVERSION', env) ?? '');
  if (!match) return 'Go is not installed';
  const [major, minor] = [Number(match[1]), Number(match[2])];
  if (major > MIN_GO[0] || (major === MIN_GO[0] && minor >= MIN_GO[1])) return undefined;
  return `Go ${major}.${minor} is older than ${MIN_GO.join('.')}`;
}

export const MIN_GO_VERSION = MIN_GO.join('.');

/**
 * `go install` of `packages` (each `module/path@version`) into `binDir`, with Go's downloads and a
 * progress line every 15 s shown through `log`; fails with the end of Go's output.
 */
export async function goInstall(
  packages: string[],
  binDir: string,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv,
  ldflags = '-s -w',
): Promise<void> {
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', ['install', '-x', '-ldflags', ldflags, ...packages], {
      // A neutral working directory: go install pkg@version must not see a go.mod of ours.
      cwd: binDir,
      env: { ...env, GOBIN: binDir, GOFLAGS: '-mod=mod', CGO_ENABLED: '0' },
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
  log(`Built in ${Math.round((Date.now() - started) / 1000)} s.`);
}
