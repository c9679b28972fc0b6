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
  /** PostgreSQL's jsonb cannot store U+0000. */
  readonly nulCharacters = new RowProblems();
  /** Whether some number may repeat an earlier one: only then are duplicates looked for. */
  readonly repeats = new RepeatFilter();
  rowCount = 0;
  private readonly zones = new Map<string, boolean>();
  private readonly sourcePrefix: string;

  constructor(
    private readonly header: CsvHeader,
    sourceId: string,
  ) {
    this.sourcePrefix = `${sourceId}\t`;
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
    if (this.header.contextColumns.some(([index]) => cells[index]?.includes('\0'))) this.nulCharacters.add(rowNumber);
    if (phone === null || this.hasProblems) return null;
    this.repeats.add(phone);

    let context = '{';
    for (const [index, key] of this.header.contextColumns) {
      if (context.length > 1) context += ',';
      context += `${key}:${JSON.stringify(cells[index] ?? '')}`;
    }
    context += '}';
    // JSON.stringify escapes every control character, so only backslashes need COPY escaping;
    // phone numbers and valid zone names never contain a tab, newline or backslash.
    return `${this.sourcePrefix}${rowNumber}\t${phone}\t${timezone === '' ? '\\N' : timezone}\t${context.replaceAll('\\', '\\\\')}\n`;
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
