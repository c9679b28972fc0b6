import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { AppError } from '../errors';
import { MULTIPART_FILE_FIELD, MULTIPART_OVERHEAD_BYTES, multipartFile, type CsvUpload } from './csv-body';

/** 413 once more than `maxBytes` of the file arrived; the connection closes after the answer. */
const documentTooLarge = (maxBytes: number): AppError =>
  new AppError(413, `The document is larger than the limit of ${maxBytes} bytes (KNOWLEDGE_BASE_MAX_BYTES)`, {
    Connection: 'close',
  });

/** The `file` part of a multipart form, as a stream counted against `maxBytes` and the minimum rate. */
export function documentUpload(req: IncomingMessage, maxBytes: number, minBytesPerSecond: number): Promise<CsvUpload> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'multipart/form-data') {
    throw new AppError(415, `Send the document as the '${MULTIPART_FILE_FIELD}' field of multipart/form-data`);
  }
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > maxBytes + MULTIPART_OVERHEAD_BYTES) throw documentTooLarge(maxBytes);
  return multipartFile(req, maxBytes, minBytesPerSecond, documentTooLarge);
}

/** A spooled file read whole, with its hex SHA-256. */
export async function readWithDigest(stream: Readable): Promise<{ content: Buffer; sha256: string }> {
  const hash = createHash('sha256');
  const parts: Buffer[] = [];
  for await (const part of stream) {
    hash.update(part as Buffer);
    parts.push(part as Buffer);
  }
  return { content: Buffer.concat(parts), sha256: hash.digest('hex') };
}
