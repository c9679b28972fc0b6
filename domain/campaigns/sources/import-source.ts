import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import type { DataSource } from 'typeorm';
import {
  openContactListUpload,
  type ContactListUpload,
} from '../../../entities/repositories/campaign-source.repository';
import { InvalidError } from '../../errors';
import { QuotaExceededError, type Quotas } from '../../quotas';
import { ContactCopyLines } from './copy-lines';
import { RowProblems } from './row-problems';

export interface ImportedSource {
  source_id: string;
  file_name: string;
  total_rows: number;
  columns: string[];
}

/** A single CSV record (an unclosed quote, say) may not grow past this. */
const MAX_RECORD_BYTES = 1024 * 1024;
const EMPTY_FILE = 'CSV file must have a header row and at least one data row';
/** How an upload stream fails when the client goes away. */
const CLIENT_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'ECONNABORTED']);

/**
 * Reads a contacts CSV from `csv` and stores it as one `campaign_sources` row and one
 * `campaign_contacts` row per data row, in one transaction: COPY streams the rows while they are
 * parsed, so neither the file nor its rows are ever held in memory. Any problem (bad rows, a
 * malformed file, 413, the client leaving) rolls everything back.
 */
export async function importCampaignSource(
  dataSource: DataSource,
  organizationId: number,
  csv: Readable,
  fileName: string,
  quotas: Quotas,
): Promise<ImportedSource> {
  const upload = await openContactListUpload(dataSource);
  const session: CopySession = { upload, copying: false };
  let reusable = false;
  try {
    await upload.begin();
    const imported = await copyContacts(session, organizationId, csv, fileName);
    // Last, so the quota's lock is held only until the commit, never while the file is read.
    await upload.claim(quotas, 'campaign_sources', organizationId);
    await upload.commit();
    reusable = true;
    return imported;
  } catch (error) {
    // Refused after the COPY: the connection is idle in the transaction, roll back and keep it.
    if ((error instanceof InvalidError || error instanceof QuotaExceededError) && !session.copying) {
      reusable = await upload.rollback();
    }
    throw error;
  } finally {
    // Anything else (a COPY cut short by 413, a malformed row or the client leaving) drops the
    // connection: PostgreSQL rolls the transaction back itself, whatever state the protocol was in.
    upload.release({ reusable });
  }
}

interface CopySession {
  upload: ContactListUpload;
  /** True while COPY runs: the connection cannot simply take a ROLLBACK then. */
  copying: boolean;
}

async function copyContacts(
  session: CopySession,
  organizationId: number,
  csv: Readable,
  fileName: string,
): Promise<ImportedSource> {
  const { upload } = session;
  const sourceId = `src_${randomUUID()}`;
  // The contacts reference the source, so it is written first; columns and count come at the end.
  await upload.insertSource(sourceId, organizationId, fileName);

  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    skip_records_with_empty_values: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  const contacts = new ContactCopyLines(sourceId);
  const copy = upload.contactsCopy();
  session.copying = true;
  try {
    await pipeline(csv, parser, contacts, copy);
  } catch (error) {
    throw uploadError(error);
  }
  session.copying = false;

  const { header, rows } = contacts;
  if (!header || !rows) throw new InvalidError(EMPTY_FILE);
  const problems = [
    rowsError(
      'Invalid phone numbers',
      rows.invalidPhones,
      "Phone numbers must be E.164: '+', the country code and the number, e.g. +14155550100.",
    ),
    rowsError(
      'Invalid timezones',
      rows.invalidTimezones,
      'Use IANA timezone names such as America/New_York, or leave the cell empty.',
    ),
    rowsError('NUL characters', rows.nulCharacters, 'The file must be text.'),
  ].filter((message) => message !== null);
  if (problems.length > 0) throw new InvalidError(problems.join(' '));
  if (rows.rowCount === 0) throw new InvalidError(EMPTY_FILE);

  if (rows.repeats.mayHaveRepeats) {
    const duplicateError = rowsError(
      'Duplicate phone numbers found',
      await duplicateRows(upload, sourceId),
      'Each repeats the number of an earlier row; phone numbers in a contact list must be unique.',
    );
    if (duplicateError) throw new InvalidError(duplicateError);
  }

  await upload.completeSource(sourceId, rows.rowCount, header.columns);
  return { source_id: sourceId, file_name: fileName, total_rows: rows.rowCount, columns: header.columns };
}

/** Parser errors and a client gone are the file's fault; anything else (the upload's own limits, the header's refusals, our failures) passes as it is. */
function uploadError(error: unknown): unknown {
  if (error instanceof CsvError) return new InvalidError(malformed(error));
  const code = (error as { code?: unknown }).code;
  if ((typeof code === 'string' && CLIENT_GONE.has(code)) || (error as Error).message === 'aborted') {
    return new InvalidError('The upload was interrupted before the end of the file');
  }
  return error;
}

/**
 * Names the row and line of a parser error. The parser may fail before earlier records were read
 * (it parses ahead), so the row comes from its own count, in which the header is record 1.
 */
function malformed(error: CsvError): string {
  const row = typeof error.records === 'number' ? error.records : '?';
  const line = typeof error.lines === 'number' ? ` (line ${error.lines})` : '';
  // Only counts are quoted: some csv-parse messages include the record, which is personal data.
  const lengths = /expect (\d+), got (\d+)/.exec(error.message);
  const problem =
    error.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH' && lengths
      ? `it has ${lengths[2]} fields, the header has ${lengths[1]}`
      : error.message;
  return `Malformed CSV at row ${row}${line}: ${problem}`;
}

/**
 * Rows (numbered from 1) whose number already appeared in an earlier row, found by PostgreSQL:
 * exact, whatever the file size, but a sort of every new row (about 1 s for a million).
 */
async function duplicateRows(upload: ContactListUpload, sourceId: string): Promise<RowProblems> {
  const rows = await upload.repeatedRows(sourceId);
  const problems = new RowProblems();
  for (const row of rows) problems.add(row.row_number);
  problems.count = Number(rows[0]?.total ?? 0);
  return problems;
}

function rowsError(what: string, problems: RowProblems, advice: string): string | null {
  return problems.count === 0 ? null : `${what} ${problems.describe()}. ${advice}`;
}
