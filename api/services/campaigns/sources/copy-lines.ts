import { Transform, type TransformCallback } from 'node:stream';
import { ContactRows } from './contact-row';
import { readHeader, type CsvHeader } from './csv-header';

/** COPY text is pushed in chunks of about this many characters, not one write per row. */
const CHUNK_CHARS = 64 * 1024;

/**
 * CSV records in, COPY text out: the first record is the header, each following one a contact.
 * Rows are validated as they pass; once one has a problem nothing more is sent to PostgreSQL (the
 * upload will be refused), but the rest of the file is still checked for the error's full count.
 */
export class ContactCopyLines extends Transform {
  header: CsvHeader | undefined;
  rows: ContactRows | undefined;
  private chunk = '';

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
    if (line !== null) {
      this.chunk += line;
      if (this.chunk.length >= CHUNK_CHARS) {
        this.push(this.chunk);
        this.chunk = '';
      }
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.chunk.length > 0 && !this.rows?.hasProblems) this.push(this.chunk);
    this.chunk = '';
    done();
  }
}
