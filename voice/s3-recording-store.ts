import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logger';
import type { DiskRecordingStore } from './disk-recording-store';
import type { RecordingStore, StoredRecording } from './recording-store';

/** Waits before the second and third upload attempts; then the recording stays on disk. */
const UPLOAD_RETRY_DELAYS_MS = [1_000, 4_000];

/**
 * The client for RECORDINGS_S3_BUCKET. Checksums only where an operation requires them: the SDK's
 * default (a CRC32 trailer on `aws-chunked` bodies) is refused by S3-compatible servers that lack it,
 * so uploads carry Content-MD5 instead, which S3 and every S3-compatible server check.
 */
export function s3ClientFor(config: Config, logger: Logger): S3Client {
  const sdkLog = logger.child({ component: 's3' });
  const debug = (...content: unknown[]) => sdkLog.debug({ sdk: content }, 'aws sdk');
  return new S3Client({
    region: config.S3_REGION,
    ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {}),
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    ...(config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
      ? { credentials: { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY } }
      : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Unset, a connection that stops answering would hold a call's upload (and shutdown) forever.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 30_000 },
    // The SDK logs every command at info, and a failed upload (retried here) at warn.
    logger: { trace: debug, debug, info: debug, warn: debug, error: debug },
  });
}

/** Server-side encryption of uploaded recordings (`RECORDINGS_S3_SSE`, `RECORDINGS_S3_KMS_KEY_ID`). */
export type RecordingEncryption = { mode: 'none' } | { mode: 'AES256' } | { mode: 'aws:kms'; kmsKeyId?: string };

export function recordingEncryptionOf(config: Config): RecordingEncryption {
  if (config.RECORDINGS_S3_SSE === 'aws:kms') {
    return {
      mode: 'aws:kms',
      ...(config.RECORDINGS_S3_KMS_KEY_ID ? { kmsKeyId: config.RECORDINGS_S3_KMS_KEY_ID } : {}),
    };
  }
  return { mode: config.RECORDINGS_S3_SSE };
}

async function fileMd5(path: string): Promise<string> {
  const hash = createHash('md5');
  await pipeline(createReadStream(path), hash);
  return hash.digest('base64');
}

/**
 * Recordings in an S3 bucket as `<prefix><run_id>.wav`. They are recorded on local disk, uploaded
 * when the call ends, and the local copy is removed once S3 has accepted the upload. A recording whose
 * upload failed every attempt stays on disk and is served from there.
 */
export class S3RecordingStore implements RecordingStore {
  private readonly disk: DiskRecordingStore;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly log: Logger;
  private readonly retryDelaysMs: readonly number[];
  private readonly encryption: RecordingEncryption;

  constructor(options: {
    disk: DiskRecordingStore;
    client: S3Client;
    bucket: string;
    prefix: string;
    logger: Logger;
    /** AES256 (S3-managed keys) by default. */
    encryption?: RecordingEncryption;
    retryDelaysMs?: readonly number[];
  }) {
    this.disk = options.disk;
    this.client = options.client;
    this.bucket = options.bucket;
    this.prefix = options.prefix;
    this.log = options.logger.child({ component: 'recordings', bucket: options.bucket });
    this.retryDelaysMs = options.retryDelaysMs ?? UPLOAD_RETRY_DELAYS_MS;
    this.encryption = options.encryption ?? { mode: 'AES256' };
  }

  private key(runId: number): string {
    return `${this.prefix}${runId}.wav`;
  }

  localPath(runId: number): string {
    return this.disk.localPath(runId);
  }

  async keep(runId: number): Promise<void> {
    const path = this.localPath(runId);
    const key = this.key(runId);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.upload(path, key);
        break;
      } catch (error) {
        const delay = this.retryDelaysMs[attempt - 1];
        if (delay === undefined) {
          this.log.error(
            { err: error, runId, key, path, attempts: attempt },
            'recording upload failed; kept on local disk',
          );
          return;
        }
        this.log.warn({ err: error, runId, key, attempt }, 'recording upload failed; trying again');
        await sleep(delay);
      }
    }
    // The disk copy is served first: one left behind is the same recording, only not removed.
    await unlink(path).catch((error: unknown) =>
      this.log.warn({ err: error, runId, path }, 'uploaded recording not removed from local disk'),
    );
  }

  /**
   * One PutObject of the whole file: a fresh stream each attempt (the SDK cannot retry a stream).
   * With encryption asked for, an answer that does not confirm it (a server that ignored the header)
   * fails the attempt and the object is deleted again: no recording stays in the bucket unencrypted.
   */
  private async upload(path: string, key: string): Promise<void> {
    const { size } = await stat(path);
    const contentMd5 = await fileMd5(path);
    const body = createReadStream(path);
    const { encryption } = this;
    try {
      const answer = await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: body,
          ContentLength: size,
          ContentMD5: contentMd5,
          ContentType: 'audio/wav',
          ...(encryption.mode === 'none' ? {} : { ServerSideEncryption: encryption.mode }),
          ...(encryption.mode === 'aws:kms' && encryption.kmsKeyId ? { SSEKMSKeyId: encryption.kmsKeyId } : {}),
        }),
      );
      if (encryption.mode !== 'none' && answer.ServerSideEncryption !== encryption.mode) {
        await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
        throw new Error(
          `S3 stored ${key} with server-side encryption ${answer.ServerSideEncryption ?? 'none'}, not ${encryption.mode}`,
        );
      }
    } finally {
      // A request that failed before reading the whole file leaves it open.
      body.destroy();
    }
  }

  async find(runId: number): Promise<StoredRecording | null> {
    const local = await this.disk.find(runId);
    if (local) return local;
    const key = this.key(runId);
    let size: number;
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      size = head.ContentLength ?? 0;
    } catch (error) {
      if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return null;
      throw error;
    }
    return {
      size,
      open: async (range) => {
        const object = await this.client.send(
          new GetObjectCommand({
            Bucket: this.bucket,
            Key: key,
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        );
        if (!(object.Body instanceof Readable)) throw new Error('S3 GetObject answered without a body stream');
        return object.Body;
      },
    };
  }

  /** S3 answers a delete of a missing key with success, so a repeated removal is harmless. */
  async remove(runId: number): Promise<void> {
    await this.disk.remove(runId);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(runId) }));
  }
}
