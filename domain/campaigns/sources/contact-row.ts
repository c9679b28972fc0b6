import { IANAZone } from 'luxon';
import type { CsvHeader } from './csv-header';
import { e164 } from './phone-number';
import { RepeatFilter } from './repeat-filter';
import { RowProblems } from './row-problems';

/** Distinct timezone values remembered; a file with more simply checks the rest each time. */
const MAX_CACHED_ZONES = 1_000;

/**
 * Validates data rows one by one and writes the valid ones as lines of PostgreSQL's COPY text
 * format (`source_id, row_number, phone_number, timezone, initial_context`). Problems are counted
 * per kind; once there is one, no more lines are produced (the upload will be refused), but every
 * row is still checked so the error can give the full count.
 */
export class ContactRows {
  readonly invalidPhones = new RowProblems();
  readonly invalidTimezones = new RowProblems();
  /** U+0000: each call copies the context into its run's jsonb, which cannot hold it. */
  readonly nulCharacters = new RowProblems();
  /** Whether some number may repeat an earlier one: only then are duplicates looked for. */
  readonly repeats = new RepeatFilter();
  rowCount = 0;
  private readonly zones = new Map<string, boolean>();
  private readonly sourcePrefix: string;
  /** Where each `initial_context` cell is in a row, and what precedes its value in the object. */
  private readonly contextIndexes: number[];
  private readonly contextKeys: string[];

  constructor(
    private readonly header: CsvHeader,
    sourceId: string,
  ) {
    this.sourcePrefix = `${sourceId}\t`;
    this.contextIndexes = header.contextColumns.map(([index]) => index);
    this.contextKeys = header.contextColumns.map(([, key], order) => `${order === 0 ? '{' : ','}${key}:`);
  }

  get hasProblems(): boolean {
    return this.invalidPhones.count > 0 || this.invalidTimezones.count > 0 || this.nulCharacters.count > 0;
  }

  /** The COPY line of the next data row (numbered from 1), or null when the row has a problem. */
  next(cells: string[]): string | null {
    this.rowCount += 1;
    const rowNumber = this.rowCount;
    const phone = e164(cells[this.header.phoneIndex] ?? '');
    if (phone === null) this.invalidPhones.add(rowNumber);
    const timezone = this.header.timezoneIndex === -1 ? '' : (cells[this.header.timezoneIndex] ?? '').trim();
    if (timezone !== '' && !this.isZone(timezone)) this.invalidTimezones.add(rowNumber);
    // One pass over the other cells builds the JSON object and finds NUL characters.
    let context = '';
    let nul = false;
    for (let i = 0; i < this.contextIndexes.length; i += 1) {
      const cell = cells[this.contextIndexes[i]!] ?? '';
      if (cell.includes('\0')) nul = true;
      context += this.contextKeys[i]! + JSON.stringify(cell);
    }
    if (nul) this.nulCharacters.add(rowNumber);
    if (phone === null || this.hasProblems) return null;
    this.repeats.add(phone);

    context = context === '' ? '{}' : `${context}}`;
    // JSON.stringify escapes every control character, so only backslashes need COPY escaping;
    // phone numbers and valid zone names never contain a tab, newline or backslash.
    if (context.includes('\\')) context = context.replaceAll('\\', '\\\\');
    return `${this.sourcePrefix}${rowNumber}\t${phone}\t${timezone === '' ? '\\N' : timezone}\t${context}\n`;
  }

  private isZone(name: string): boolean {
    let valid = this.zones.get(name);
    if (valid === undefined) {
      valid = IANAZone.isValidZone(name);
      if (this.zones.size < MAX_CACHED_ZONES) this.zones.set(name, valid);
    }
    return valid;
  }
}
