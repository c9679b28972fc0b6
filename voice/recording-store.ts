import type { Readable } from 'node:stream';
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logger';
import { DiskRecordingStore } from './disk-recording-store';
import { recordingEncryptionOf, S3RecordingStore, s3ClientFor } from './s3-recording-store';

/** Bytes `start` to `end` of a file, both included (as an HTTP `Range` names them). */
export interface ByteRange {
  start: number;
  end: number;
}

/** A finished recording, wherever it is kept. */
export interface StoredRecording {
  size: number;
  /** The whole file, or the given range of it. */
  open(range?: ByteRange): Promise<Readable>;
}

/**
 * Where calls' two-track WAVs live. A recording is always written to local disk while its call runs
 * (incrementally, its header fixed at the end); `keep` then moves it to lasting storage.
 */
export interface RecordingStore {
  /** The local file the recorder writes. */
  localPath(runId: number): string;
  /**
   * The recording at `localPath` is complete: keep it. Never loses it and never throws for a storage
   * failure: a recording that could not be moved stays on local disk (logged) and is served from there.
   */
  keep(runId: number): Promise<void>;
  /** The run's recording, or null when there is none (yet). */
  find(runId: number): Promise<StoredRecording | null>;
  /** Deletes the run's recording wherever it is kept; nothing to delete is no error (it may run again). */
  remove(runId: number): Promise<void>;
}

/** Local disk (`RECORDINGS_DIR`), or an S3 bucket when RECORDINGS_S3_BUCKET is set. */
export function createRecordingStore(config: Config, logger: Logger): RecordingStore {
  const disk = new DiskRecordingStore(config.RECORDINGS_DIR);
  if (!config.RECORDINGS_S3_BUCKET) return disk;
  return new S3RecordingStore({
    disk,
    client: s3ClientFor(config, logger),
    bucket: config.RECORDINGS_S3_BUCKET,
    prefix: config.RECORDINGS_S3_PREFIX,
    encryption: recordingEncryptionOf(config),
    logger,
  });
}
