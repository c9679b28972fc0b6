import type { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import type { DataSource } from 'typeorm';
import { createDoNotCallRepository } from '../../entities/repositories/do-not-call.repository';
import type { DoNotCallImportResult } from './types';
import { e164 } from '../campaigns/sources/phone-number';
import { RowProblems } from '../campaigns/sources/row-problems';
import { codePoints } from '../input-rules';
import { InvalidError } from '../errors';
import type { Quotas } from '../quotas';
import { DNC_REASON_MAX } from './do-not-call';

/** A single CSV record (an unclosed quote, say) may not grow past this. */
const MAX_RECORD_BYTES = 64 * 1024;
/** Numbers written per statement. */
const BATCH_ROWS = 1000;
const PHONE_COLUMN = 'phone_number';
const REASON_COLUMN = 'reason';
const EMPTY_FILE = 'CSV file must have a header row and at least one data row';

/**
 * Reads a do-not-call CSV (`phone_number`, optional `reason`; other columns are ignored) as it
 * streams, and lists its numbers in one transaction, a batch at a time. Nothing is stored when a
 * row is bad (an invalid number, a reason over the limit) or the file has more than `maxRows`
 * rows: the error names the first rows and the count. Numbers listed already keep their entry. The
 * new entries count against the organization's quota, all at once: past it, none is stored.
 */
export async function importDoNotCall(
  dataSource: DataSource,
  quotas: Quotas,
  organizationId: number,
  csv: Readable,
  maxRows: number,
): Promise<DoNotCallImportResult> {
  return createDoNotCallRepository(dataSource).transaction(async (numbers, manager) => {
    const parser = parse({ bom: true, skip_empty_lines: true, max_record_size: MAX_RECORD_BYTES, trim: true });
    csv.on('error', (error) => parser.destroy(error));
    csv.pipe(parser);

    let columns: { phone: number; reason: number } | undefined;
    let rowCount = 0;
    let imported = 0;
    const badNumbers = new RowProblems();
    const longReasons = new RowProblems();
    let batch: { phone_number: string; reason: string | null }[] = [];
    const flush = async () => {
      if (batch.length > 0 && badNumbers.count === 0 && longReasons.count === 0) {
        imported += await numbers.listImported(organizationId, batch);
      }
      batch = [];
    };
    try {
      for await (const record of parser as AsyncIterable<string[]>) {
        if (!columns) {
          columns = readColumns(record);
          continue;
        }
        rowCount += 1;
        if (rowCount > maxRows) {
          throw new InvalidError(
            `The file has more than ${maxRows} rows (DNC_IMPORT_MAX_ROWS); split it and import each part`,
          );
        }
        const phone = e164(record[columns.phone] ?? '');
        const reason = columns.reason === -1 ? '' : (record[columns.reason] ?? '');
        if (phone === null) badNumbers.add(rowCount);
        if (codePoints(reason) > DNC_REASON_MAX || reason.includes('\u0000')) longReasons.add(rowCount);
        if (phone !== null) batch.push({ phone_number: phone, reason: reason === '' ? null : reason });
        if (batch.length >= BATCH_ROWS) await flush();
      }
    } catch (error) {
      parser.destroy();
      // Only the parser's code is quoted: its messages may include the record, which is personal data.
      if (error instanceof CsvError) {
        const at = (value: unknown) => (typeof value === 'number' ? String(value) : '?');
        throw new InvalidError(`Malformed CSV at row ${at(error.records)} (line ${at(error.lines)}): ${error.code}`);
      }
      throw error;
    }
    await flush();
    if (!columns || rowCount === 0) throw new InvalidError(EMPTY_FILE);
    const problems = [
      badNumbers.count > 0
        ? `Invalid phone numbers ${badNumbers.describe()}: use '+', the country code and the number, e.g. +14155550100.`
        : '',
      longReasons.count > 0
        ? `Reasons longer than ${DNC_REASON_MAX} characters (or containing NUL) ${longReasons.describe()}.`
        : '',
    ].filter(Boolean);
    // Thrown inside the transaction: every batch written so far is rolled back.
    if (problems.length > 0) throw new InvalidError(problems.join(' '));
    if (imported > 0) await quotas.claim(manager, 'do_not_call_numbers', organizationId);
    return { total_rows: rowCount, imported, already_listed: rowCount - imported };
  });
}

function readColumns(header: string[]): { phone: number; reason: number } {
  const names = header.map((cell) => cell.trim().toLowerCase());
  const phone = names.indexOf(PHONE_COLUMN);
  if (phone === -1) throw new InvalidError(`The CSV must have a '${PHONE_COLUMN}' column`);
  return { phone, reason: names.indexOf(REASON_COLUMN) };
}
