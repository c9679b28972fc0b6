import type { IncomingMessage } from 'node:http';
import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import busboy from 'busboy';
import { AppError } from '../errors';
import { DomainError, InvalidError } from '../../domain/errors';
import { MinimumRate } from './minimum-rate';

/** Room for the multipart boundaries and part headers around the file, on top of the file limit. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
export const MULTIPART_FILE_FIELD = 'file';

/** The CSV bytes of an upload, as a stream, and the file name the client gave, if any. */
export interface CsvUpload {
  stream: Readable;
  fileName?: string;
}

/**
 * 413 once more than `maxBytes` arrived. The connection is closed after the answer, so a client
 * still sending is cut off rather than read to the end.
 */
export function tooLarge(maxBytes: number): AppError {
  return new AppError(413, `CSV file is larger than the limit of ${maxBytes} bytes (CSV_MAX_BYTES)`, {
    Connection: 'close',
  });
}

/**
 * The CSV of a request: the body itself (`text/csv`), or the `file` part of a multipart form.
 * Never buffered: the returned stream reads the request as it is consumed. Bytes are counted as
 * they arrive, so a body without Content-Length is held to the limit too, and a body arriving
 * slower than `minBytesPerSecond` fails with 408.
 */
export function csvUpload(req: IncomingMessage, maxBytes: number, minBytesPerSecond: number): Promise<CsvUpload> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (type === 'text/csv') {
    if (declared > maxBytes) throw tooLarge(maxBytes);
    return Promise.resolve({ stream: limited(req, maxBytes, minBytesPerSecond) });
  }
  if (type === 'multipart/form-data') {
    if (declared > maxBytes + MULTIPART_OVERHEAD_BYTES) throw tooLarge(maxBytes);
    return multipartFile(req, maxBytes, minBytesPerSecond);
  }
  throw new AppError(
    415,
    `Send the CSV as the body with Content-Type text/csv, or as the '${MULTIPART_FILE_FIELD}' field of multipart/form-data`,
  );
}

/**
 * The request through a rate check and a byte counter; their errors (408, 413, client gone)
 * surface on the returned stream. Not `pipeline`: it would destroy the request, and with it the
 * socket, before the 408 or 413 is written. The rest of the body is read and dropped instead, and
 * the connection closes once the answer is sent.
 */
function limited(req: IncomingMessage, maxBytes: number, minBytesPerSecond: number): Readable {
  const rate = new MinimumRate(minBytesPerSecond);
  const counter = new ByteLimit(maxBytes);
  const dropTheRest = () => {
    req.unpipe(rate);
    req.resume();
  };
  rate.on('error', (error) => {
    dropTheRest();
    counter.destroy(error);
  });
  counter.on('error', () => {
    dropTheRest();
    rate.destroy();
  });
  req.on('error', (error) => counter.destroy(error));
  req.on('close', () => {
    if (!req.complete) counter.destroy(new Error('aborted'));
  });
  req.pipe(rate).pipe(counter);
  return quietUntilRead(counter);
}

/**
 * The `file` part of a multipart form, as a stream (see `csvUpload`); `oversize` is the 413 of a
 * file over `maxBytes`.
 */
export function multipartFile(
  req: IncomingMessage,
  maxBytes: number,
  minBytesPerSecond: number,
  oversize: (maxBytes: number) => AppError = tooLarge,
): Promise<CsvUpload> {
  return new Promise((resolve, reject) => {
    let file: Readable | undefined;
    const fail = (error: Error) => {
      if (file) file.destroy(error);
      else reject(error);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { files: 1, fileSize: maxBytes, fields: 20, fieldSize: 4096, parts: 30 },
      });
    } catch (error) {
      // Missing or malformed boundary.
      reject(new InvalidError(`Malformed multipart body: ${(error as Error).message}`));
      return;
    }
    parser.on('file', (name, stream, info) => {
      if (name !== MULTIPART_FILE_FIELD || file) {
        stream.resume();
        return;
      }
      file = quietUntilRead(stream);
      stream.on('limit', () => stream.destroy(oversize(maxBytes)));
      resolve({ stream, fileName: info.filename || undefined });
    });
    parser.on('error', (error: Error) => fail(new InvalidError(`Malformed multipart body: ${error.message}`)));
    parser.on('close', () => {
      if (!file) reject(new InvalidError(`multipart/form-data body has no '${MULTIPART_FILE_FIELD}' file field`));
    });
    const limit = new ByteLimit(maxBytes + MULTIPART_OVERHEAD_BYTES, maxBytes, oversize);
    pipeline(req, new MinimumRate(minBytesPerSecond), limit, parser, (error) => {
      if (error)
        fail(
          error instanceof AppError || error instanceof DomainError
            ? error
            : new InvalidError('The upload was interrupted'),
        );
    });
  });
}

/**
 * The stream may fail (413, 408) before its reader is attached: the error stays in
 * `stream.errored`, where the reader's pipeline finds it, instead of crashing the process as an
 * unheard 'error' event.
 */
function quietUntilRead<T extends Readable>(stream: T): T {
  stream.on('error', () => {
    // Kept in stream.errored; see above.
  });
  return stream;
}

/** Passes bytes through until more than `maxBytes` went by. */
class ByteLimit extends Transform {
  private seen = 0;

  constructor(
    private readonly maxBytes: number,
    /** The limit named in the 413, when the count includes framing around the file. */
    private readonly reportedLimit = maxBytes,
    private readonly oversize: (maxBytes: number) => AppError = tooLarge,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.maxBytes) {
      done(this.oversize(this.reportedLimit));
      return;
    }
    done(null, chunk);
  }
}
