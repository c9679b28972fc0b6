import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** The lock of the first slot among files that run alone; the others are `run-alone-<n>.lock`. */
const LOCK = 'run-alone.lock';
const lockName = (slot: number) => (slot === 0 ? LOCK : `run-alone-${slot}.lock`);
/** Marks a worker with a file that must run alone, from before it takes the lock until it ends. */
const ALONE_PREFIX = 'alone-';
const POLL_MS = 500;

/** Where a file notes how long it waited for others (read by the slowest-files reporter). */
export const waitRecordOf = (folder: string, file: string): string =>
  join(folder, `${encodeURIComponent(file)}.wait-ms`);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const defaultAnnounce = (line: string) => process.stderr.write(`[run alone] ${line}\n`);

/**
 * Which test files are running, across jest's worker processes, through markers in a folder the
 * global setup makes (a worker runs one file at a time). A file that must run alone marks itself
 * waiting, takes one of `atOnce` locks among such files (one by default: they run one at a time),
 * then waits until no worker runs a shared file; a shared file does not start while a file that
 * runs alone waits or runs. Markers and locks left by a worker that died are ignored.
 */
export class RunningFiles {
  private readonly marker: string;
  private readonly aloneMarker: string;
  /** The lock this worker holds, if any. */
  private held: string | undefined;

  constructor(
    private readonly folder: string,
    private readonly announce: (line: string) => void = defaultAnnounce,
  ) {
    mkdirSync(folder, { recursive: true });
    this.marker = join(folder, String(process.pid));
    this.aloneMarker = join(folder, `${ALONE_PREFIX}${process.pid}`);
  }

  /** Resolves once no file that runs alone waits or runs, and marks this worker busy. */
  async enterShared(file: string): Promise<void> {
    if (this.othersMarked(ALONE_PREFIX) > 0) {
      const started = Date.now();
      this.announce(`${file} waits for the files that run alone`);
      while (this.othersMarked(ALONE_PREFIX) > 0) await sleep(POLL_MS);
      writeFileSync(waitRecordOf(this.folder, file), String(Date.now() - started));
    }
    writeFileSync(this.marker, '');
  }

  /**
   * Resolves once this file holds one of `atOnce` locks (so at most that many files that run alone
   * run together) and no other worker runs a shared file.
   */
  async enterAlone(file: string, atOnce = 1): Promise<void> {
    const started = Date.now();
    writeFileSync(this.aloneMarker, file);
    let announced = false;
    const announce = (why: string) => {
      if (announced) return;
      announced = true;
      this.announce(`${file} waits for ${why}`);
    };
    while (!this.takeLock(atOnce)) {
      announce(atOnce === 1 ? 'another file that runs alone' : `${atOnce} other files that run alone`);
      await sleep(POLL_MS);
    }
    while (this.othersMarked('') > 0) {
      announce('the running files to finish');
      await sleep(POLL_MS);
    }
    writeFileSync(waitRecordOf(this.folder, file), String(Date.now() - started));
  }

  leave(): void {
    rmSync(this.marker, { force: true });
    rmSync(this.aloneMarker, { force: true });
    if (this.held && this.lockHolder(this.held) === process.pid) rmSync(this.held, { force: true });
    this.held = undefined;
  }

  /** Takes the first of `slots` locks that is free or left by a dead worker. */
  private takeLock(slots: number): boolean {
    for (let slot = 0; slot < slots; slot++) {
      const lock = join(this.folder, lockName(slot));
      const holder = this.lockHolder(lock);
      if (holder !== undefined && holder !== process.pid && alive(holder)) continue;
      if (holder !== undefined) rmSync(lock, { force: true });
      try {
        writeFileSync(lock, String(process.pid), { flag: 'wx' });
        this.held = lock;
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    return false;
  }

  private lockHolder(lock: string): number | undefined {
    try {
      return Number(readFileSync(lock, 'utf8')) || undefined;
    } catch {
      return undefined;
    }
  }

  /** Live workers other than this one with a marker `<prefix><pid>` ('' for shared files). */
  private othersMarked(prefix: string): number {
    const pattern = new RegExp(`^${prefix}(\\d+)$`);
    return readdirSync(this.folder)
      .map((name) => pattern.exec(name)?.[1])
      .filter((pid): pid is string => pid !== undefined)
      .map(Number)
      .filter((pid) => pid !== process.pid && alive(pid)).length;
  }
}
