import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const LOCK = 'run-alone.lock';

/** Where a file that ran alone notes how long it waited (read by the slowest-files reporter). */
export const waitRecordOf = (folder: string, file: string): string =>
  join(folder, `${encodeURIComponent(file)}.wait-ms`);
const POLL_MS = 500;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Which test files are running, across jest's worker processes: a marker per worker (a worker runs
 * one file at a time) in a folder the global setup makes. A file that must run alone first takes a
 * lock among such files, then waits until no other worker has a file running. Markers and a lock
 * left by a worker that died are ignored.
 */
export class RunningFiles {
  private readonly marker: string;
  private readonly lock: string;

  constructor(private readonly folder: string) {
    mkdirSync(folder, { recursive: true });
    this.marker = join(folder, String(process.pid));
    this.lock = join(folder, LOCK);
  }

  /** Marks this worker busy with a file that shares the machine. */
  enterShared(): void {
    writeFileSync(this.marker, '');
  }

  /** Resolves once this file holds the lock and no other worker runs a file. */
  async enterAlone(file: string): Promise<void> {
    const started = Date.now();
    let announced = false;
    const announce = (why: string) => {
      if (announced) return;
      announced = true;
      process.stderr.write(`[run alone] ${file} waits for ${why}\n`);
    };
    while (!this.takeLock()) {
      announce('another file that runs alone');
      await sleep(POLL_MS);
    }
    while (this.othersRunning() > 0) {
      announce('the running files to finish');
      await sleep(POLL_MS);
    }
    writeFileSync(waitRecordOf(this.folder, file), String(Date.now() - started));
  }

  leave(): void {
    rmSync(this.marker, { force: true });
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

  private othersRunning(): number {
    return readdirSync(this.folder)
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => pid !== process.pid && alive(pid)).length;
  }
}
