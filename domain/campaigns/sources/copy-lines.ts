import { Transform, type TransformCallback } from 'node:stream';
import { ContactRows } from './contact-row';
import { readHeader, type CsvHeader } from './csv-header';

/** COPY text is pushed in chunks of this many bytes at most, not one write per row. */
const CHUNK_BYTES = 64 * 1024;
/** UTF-8 takes at most 3 bytes per UTF-16 code unit: room for a line is checked with this. */
const MAX_BYTES_PER_CHAR = 3;

/**
 * CSV records in, COPY text out: the first record is the header, each following one a contact.
 * Rows are validated as they pass; once one has a problem nothing more is sent to PostgreSQL (the
 * upload will be refused), but the rest of the file is still checked for the error's full count.
 */
export class ContactCopyLines extends Transform {
  header: CsvHeader | undefined;
  rows: ContactRows | undefined;
  /** Lines are encoded straight into this buffer, so each line's string dies young. */
  private chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;

  constructor(private readonly sourceId: string) {
    super({ writableObjectMode: true });
  }

  override _transform(record: string[], _encoding: BufferEncoding, done: TransformCallback): void {
    if (!this.rows) {
      try {
        this.header = readHeader(record);
      } catch (error) {
        done(error as Error);
        return;
      }
      this.rows = new ContactRows(this.header, this.sourceId);
      done();
      return;
    }
    const line = this.rows.next(record);
    if (line !== null) this.append(line);
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.used > 0 && !this.rows?.hasProblems) this.push(this.chunk.subarray(0, this.used));
    done();
  }

  private append(line: string): void {
    const room = line.length * MAX_BYTES_PER_CHAR;
    if (this.used + room > this.chunk.length) {
      if (this.used > 0) this.push(this.chunk.subarray(0, this.used));
      this.chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, room));
      this.used = 0;
    }
    this.used += this.chunk.write(line, this.used);
  }
}
