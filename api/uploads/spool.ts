import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface SpooledUpload {
  /** The spooled bytes, read from disk. */
  open(): Readable;
  /** Removes the file; safe to call more than once. */
  remove(): Promise<void>;
}

/**
 * Copies an upload to a private temporary file before anything touches the database, so a slow
 * client holds a file, never a connection or a transaction. The upload's own errors (413, 408,
 * the client leaving) reject, with the file already gone.
 */
export async function spoolUpload(upload: Readable): Promise<SpooledUpload> {
  const directory = await mkdtemp(join(tmpdir(), 'switchboard-upload-'));
  const path = join(directory, 'upload.csv');
  const remove = () => rm(directory, { recursive: true, force: true });
  try {
    await pipeline(upload, createWriteStream(path, { mode: 0o600 }));
  } catch (error) {
    await remove();
    throw error;
  }
  return { open: () => createReadStream(path), remove };
}
