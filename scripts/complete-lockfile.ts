import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm run lockfile:complete`, after any `npm install <pkg>` on a machine whose registry does not
 * serve other platforms' optional binaries (darwin, win32, ...): npm then leaves those packages out
 * of package-lock.json, and `npm ci` refuses the lock as out of sync. This adds the missing entries
 * with the os/cpu/libc their names state, so `npm ci` accepts the lock and skips them, as it skips
 * every binary built for another platform.
 */

interface LockEntry {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
}

const root = join(__dirname, '..');
const lockPath = join(root, 'package-lock.json');

function missingFromLock(): string[] {
  let output: string;
  try {
    output = execFileSync('npm', ['ci', '--dry-run'], { cwd: root, encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    output = `${failed.stdout ?? ''}${failed.stderr ?? ''}`;
  }
  return [...output.matchAll(/Missing: (@?[^@\s]+)@\S* from lock file/g)].map((match) => match[1] as string);
}

/** `@swc/core-linux-arm-gnueabihf` → os linux, cpu arm, libc glibc. */
function platformOf(name: string): Pick<LockEntry, 'os' | 'cpu' | 'libc'> {
  const tail = name.split('/').pop() ?? name;
  const match =
    /(android|darwin|freebsd|linux|openharmony|win32|sunos|aix|netbsd|openbsd)-([a-z0-9]+)(?:-(\w+))?$/.exec(tail);
  if (!match) throw new Error(`Cannot tell the platform of ${name}; add its lock entry by hand.`);
  const [, os, cpu, abi] = match as unknown as [string, string, string, string | undefined];
  const libc = os === 'linux' && abi ? [abi.startsWith('musl') ? 'musl' : 'glibc'] : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
}

function main(): void {
  const missing = missingFromLock();
  if (missing.length === 0) {
    console.log('package-lock.json is complete.');
    return;
  }
  const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as { packages: Record<string, LockEntry> };
  for (const name of missing) {
    const parent = Object.values(lock.packages).find((entry) => entry.optionalDependencies?.[name]);
    if (!parent?.optionalDependencies) throw new Error(`No package in the lock declares ${name} as optional.`);
    lock.packages[`node_modules/${name}`] = {
      version: parent.optionalDependencies[name],
      ...(parent.dev ? { dev: true } : {}),
      optional: true,
      ...platformOf(name),
    };
  }
  const [rootEntry, ...rest] = Object.entries(lock.packages);
  lock.packages = Object.fromEntries([...(rootEntry ? [rootEntry] : []), ...rest.sort(([a], [b]) => (a < b ? -1 : 1))]);
  writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`Added ${missing.length} platform-specific entries: ${missing.join(', ')}`);
}

main();
