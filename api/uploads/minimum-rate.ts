import { Transform, type TransformCallback } from 'node:stream';
import { AppError } from '../errors';

/** How often the rate is judged, over the bytes of that period alone. */
const PERIOD_MS = 10_000;

/**
 * 408 when the client sends too slowly. The connection is closed after the answer, so a client
 * still dripping is cut off.
 */
export const tooSlow = (minBytesPerSecond: number): AppError =>
  new AppError(
    408,
    `The upload was slower than ${minBytesPerSecond} bytes per second (CSV_MIN_UPLOAD_BYTES_PER_SECOND); send it faster`,
    { Connection: 'close' },
  );

/**
 * Passes bytes through and fails (408) when fewer than `minBytesPerSecond` arrived within any
 * 10-second period: a client dripping a byte at a time holds a request open, a spool file and a
 * socket, and must not hold them for long.
 */
export class MinimumRate extends Transform {
  private seenThisPeriod = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly minBytesPerSecond: number) {
    super();
    this.timer = setInterval(() => {
      if (this.seenThisPeriod < (minBytesPerSecond * PERIOD_MS) / 1000) this.destroy(tooSlow(minBytesPerSecond));
      this.seenThisPeriod = 0;
    }, PERIOD_MS);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.seenThisPeriod += chunk.length;
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    clearInterval(this.timer);
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    clearInterval(this.timer);
    done(error);
  }
}
