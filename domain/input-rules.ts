import { z } from 'zod';

// Rules every input value obeys, wherever it arrives: what PostgreSQL can store and index.

/** The largest PostgreSQL `integer`: every id column is one, so no larger id can name a row. */
export const MAX_ID = 2_147_483_647;

/** A row id given as a JSON number: an integer from 1 to `MAX_ID`. */
export const RowId = z.number().int().min(1).max(MAX_ID);

/** U+0000, which PostgreSQL cannot store in text or JSON. */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const NO_NUL = /^[^\u0000]*$/;
/** The characters String.prototype.trim removes (JavaScript's whitespace and line terminators). */
export const SPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
export const codePoints = (value: string): number => Array.from(value).length;

/**
 * Free text: at most `max` characters (code points, as PostgreSQL counts them) and never U+0000.
 * Every text a request carries is one of these, so the limit documented is the limit checked.
 */
export const boundedText = (max: number) =>
  z
    .string()
    .refine((value) => codePoints(value) <= max, { error: `at most ${max} characters`, abort: true })
    .regex(NO_NUL, { error: 'must not contain NUL (U+0000) characters' });

const utcYear = (value: string) => new Date(value).getUTCFullYear();
// Zod runs an overwrite after failed checks too, so text that is no date stays as sent.
const asUtc = (value: string) => (Number.isNaN(Date.parse(value)) ? value : new Date(value).toISOString());

/**
 * An ISO 8601 date-time with an offset, read as UTC: PostgreSQL refuses offsets beyond 15:59 and
 * has no year 0000, so the instant is what goes on, and it must fall in the years 0001 to 9999.
 */
export const IsoDateTime = z.iso
  .datetime({ offset: true })
  .refine((value) => Number.isNaN(utcYear(value)) || (utcYear(value) >= 1 && utcYear(value) <= 9999), {
    error: 'must fall in the years 0001 to 9999 (UTC)',
    abort: true,
  })
  .overwrite(asUtc);
