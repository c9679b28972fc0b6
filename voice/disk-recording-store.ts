import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { RecordingStore, StoredRecording } from './recording-store';
import { recordingPath } from './recordings';

/** Recordings kept where they are written: `${RECORDINGS_DIR}/<run_id>.wav`. */
export class DiskRecordingStore implements RecordingStore {
  constructor(private readonly dir: string) {}

  localPath(runId: number): string {
    return recordingPath(this.dir, runId);
  }

  /** Already where it is kept. */
  async keep(): Promise<void> {}

  async find(runId: number): Promise<StoredRecording | null> {
    const path = this.localPath(runId);
    const found = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (!found) return null;
    return { size: found.size, open: (range) => Promise.resolve(createReadStream(path, range)) };
  }

  async remove(runId: number): Promise<void> {
    await rm(this.localPath(runId), { force: true });
  }
}
