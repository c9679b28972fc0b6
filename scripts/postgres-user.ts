import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * PostgreSQL refuses to run as root, so a root caller runs it as the `postgres` user, which can
 * only use files in folders that others may enter.
 */

/** Where a cluster, or a copy of the binaries, goes when the `postgres` user cannot reach its first place. */
export const RELOCATED_CLUSTERS_DIR = '/var/lib/switchboard';

export const isRoot = (): boolean => process.getuid?.() === 0;

/** The first folder above `path` that users other than its owner may not enter, if any. */
export function closedAncestor(path: string): string | undefined {
  for (let current = dirname(resolve(path)); current !== dirname(current); current = dirname(current)) {
    if (existsSync(current) && (statSync(current).mode & 0o001) === 0) return current;
  }
  return undefined;
}

const idOf = (flag: '-u' | '-g'): number =>
  Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());

/** uid and gid of the `postgres` user, created (with its group) on first use. */
export function postgresUser(): { uid: number; gid: number } {
  try {
    return { uid: idOf('-u'), gid: idOf('-g') };
  } catch {
    execFileSync('groupadd', ['--force', 'postgres']);
    execFileSync('useradd', ['--system', '-g', 'postgres', 'postgres']);
    return { uid: idOf('-u'), gid: idOf('-g') };
  }
}
