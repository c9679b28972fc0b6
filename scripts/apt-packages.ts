import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';

/** Runs a command, passing its output to `log` line by line; resolves with its exit code. */
function run(command: string, args: string[], log: (line: string) => void): Promise<number> {
  return new Promise((resolve) => {
    // apt must never stop to ask (debconf) when CI or jest runs it.
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    let tail = '';
    const forward = (chunk: Buffer) => {
      const lines = (tail + chunk.toString()).split('\n');
      tail = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) log(`  ${line}`);
    };
    child.stdout.on('data', forward);
    child.stderr.on('data', forward);
    child.on('error', (error) => {
      log(`  ${command}: ${error.message}`);
      resolve(127);
    });
    child.on('close', (code) => {
      if (tail.trim()) log(`  ${tail}`);
      resolve(code ?? 1);
    });
  });
}

/** Package lists count as missing when apt has no `*_Packages*` index at all (a fresh container). */
const haveAptLists = (): boolean => {
  try {
    return readdirSync('/var/lib/apt/lists').some((name) => name.includes('_Packages'));
  } catch {
    return false;
  }
};

/** Whether this process is root; otherwise apt runs through `sudo -n`, which never prompts. */
export const isRoot = (): boolean => process.getuid?.() === 0;

/**
 * Installs Debian packages with apt-get (`--no-install-recommends`), running `apt-get update`
 * first when the package lists are absent or the install fails on stale ones. Resolves with
 * apt-get's exit code; the caller checks that what it needs is there.
 */
export async function aptInstall(packages: readonly string[], log: (line: string) => void): Promise<number> {
  const apt = (args: string[]) => (isRoot() ? run('apt-get', args, log) : run('sudo', ['-n', 'apt-get', ...args], log));
  const install = () => apt(['install', '-y', '--no-install-recommends', ...packages]);
  let code = haveAptLists() ? await install() : 100;
  if (code !== 0) {
    // Stale or absent package lists are the usual cause ("Unable to locate package").
    log('Running apt-get update first...');
    if ((await apt(['update'])) === 0) code = await install();
  }
  return code;
}
