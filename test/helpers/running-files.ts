import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const LOCK = 'run-alone.lock';
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
 * waiting, takes a lock among such files, then waits until no other worker runs a file; a shared
 * file does not start while a file that runs alone waits or runs. Markers and a lock left by a
 * worker that died are ignored.
 */
export class RunningFiles {
  private readonly marker: string;
  private readonly aloneMarker: string;
  private readonly lock: string;

  constructor(
    private readonly folder: string,
    private readonly announce: (line: string) => void = defaultAnnounce,
  ) {
    mkdirSync(folder, { recursive: true });
    this.marker = join(folder, String(process.pid));
    this.aloneMarker = join(folder, `${ALONE_PREFIX}${process.pid}`);
    this.lock = join(folder, LOCK);
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

  /** Resolves once this file holds the lock and no other worker runs a file. */
  async enterAlone(file: string): Promise<void> {
    const started = Date.now();
    writeFileSync(this.aloneMarker, file);
    let announced = false;
    const announce = (why: string) => {
      if (announced) return;
      announced = true;
      this.announce(`${file} waits for ${why}`);
    };
    while (!this.takeLock()) {
      announce('another file that runs alone');
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
    if (this.lockHolder() === process.pid) rmSync(this.lock, { force: true });
  }

  private takeLock(): boolean {
    const holder = this.lockHolder();
    if (holder !== undefined && holder !== process.pid && alive(holder)) return false;
    if (holder !== undefined) rmSync(this.lock, { force: true });
    try {
      writeFileSync(this.lock, String(process.pid), { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  }

  private lockHolder(): number | undefined {
    try {
      return Number(readFileSync(this.lock, 'utf8')) || undefined;
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
