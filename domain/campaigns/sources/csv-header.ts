import { InvalidError } from '../../errors';

/** Where the special columns are in a row, and the JSON keys of every other column. */
export interface CsvHeader {
  /** Normalized names (trimmed, lower-cased), in file order. */
  columns: string[];
  phoneIndex: number;
  /** -1 when the file has no `timezone` column. */
  timezoneIndex: number;
  /** `[index, JSON-encoded name]` of each column that goes to `initial_context`. */
  contextColumns: [number, string][];
}

export const PHONE_COLUMN = 'phone_number';
export const TIMEZONE_COLUMN = 'timezone';

/** Reads the header row: names are trimmed and lower-cased, and must be unique and non-empty. */
export function readHeader(cells: string[]): CsvHeader {
  const columns = cells.map((cell) => cell.trim().toLowerCase());
  const empty = columns.flatMap((name, index) => (name === '' ? [index + 1] : []));
  if (empty.length > 0) throw new InvalidError(`CSV header has empty column names (columns ${empty.join(', ')})`);
  const repeated = [...new Set(columns.filter((name, index) => columns.indexOf(name) !== index))];
  if (repeated.length > 0) {
    throw new InvalidError(
      `CSV header repeats column names after trimming and lower-casing: ${repeated.map((name) => `'${name}'`).join(', ')}`,
    );
  }
  const phoneIndex = columns.indexOf(PHONE_COLUMN);
  if (phoneIndex === -1) throw new InvalidError(`Source must contain a '${PHONE_COLUMN}' column`);
  const timezoneIndex = columns.indexOf(TIMEZONE_COLUMN);
  const contextColumns = columns.flatMap((name, index): [number, string][] =>
    index === phoneIndex || index === timezoneIndex ? [] : [[index, JSON.stringify(name)]],
  );
  return { columns, phoneIndex, timezoneIndex, contextColumns };
}
