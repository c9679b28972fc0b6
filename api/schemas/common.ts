import { z } from '../zod';

export const ErrorBody = z.object({ detail: z.string() }).openapi('ErrorBody', {
  description: 'Every error answers `{detail}`.',
});

export const ValidationErrorBody = z
  .object({
    detail: z.array(
      z.object({
        loc: z.array(z.union([z.string(), z.number()])),
        msg: z.string(),
        type: z.string(),
      }),
    ),
  })
  .openapi('ValidationErrorBody', { description: 'A 422: one `{loc, msg, type}` per problem, as FastAPI answers.' });

/** The largest PostgreSQL `integer`: every id column is one, so no larger id can name a row. */
export const MAX_ID = 2_147_483_647;

/** A path or query id: a decimal integer from 1 to `MAX_ID`. */
export const IdParam = z.coerce.number().int().min(1).max(MAX_ID);

/** An id in a JSON body: an integer from 1 to `MAX_ID`. */
export const BodyId = z.number().int().min(1).max(MAX_ID);

/** U+0000, which PostgreSQL cannot store in text or JSON. */
// eslint-disable-next-line no-control-regex -- matching NUL is the point
const NO_NUL = /^[^\u0000]*$/;
/** The characters String.prototype.trim removes (JavaScript's whitespace and line terminators). */
const SPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** At least one character that is neither whitespace nor NUL, and no NUL anywhere. */
const NOT_BLANK = new RegExp(`^[^\\u0000]*[^\\u0000${SPACE}][^\\u0000]*$`);

const codePoints = (value: string): number => Array.from(value).length;

/**
 * Free text: at most `max` characters (code points, as PostgreSQL counts them) and never U+0000.
 * Every text a request carries is one of these, so the limit documented is the limit checked.
 */
export const text = (max: number) =>
  z
    .string()
    .refine((value) => codePoints(value) <= max, { error: `at most ${max} characters`, abort: true })
    .regex(NO_NUL, { error: 'must not contain NUL (U+0000) characters' })
    .openapi({ maxLength: max });

/**
 * A name: free text with at least one visible character, stored trimmed. The bounds are checked on
 * what was sent, so the document's `maxLength` and `pattern` hold for the request as written.
 */
export const name = (max = 255) =>
  z
    .string()
    .refine((value) => codePoints(value) <= max, { error: `at most ${max} characters`, abort: true })
    .regex(NOT_BLANK, { error: 'must contain a visible character and no NUL (U+0000)' })
    .trim()
    .openapi({ maxLength: max, minLength: 1 });

/** `page` (>= 1, default 1) and `limit` (1..100, default 50): every paged list takes these. */
export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

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

/** Timestamps answer as ISO 8601 strings. */
export const DateTimeString = z.string().openapi({ format: 'date-time' });

/** A query-string boolean read from exactly `true` or `false` (`Boolean('false')` is true). */
export const queryBoolean = (fallback: boolean) =>
  z
    .enum(['true', 'false'])
    .default(fallback ? 'true' : 'false')
    .transform((value) => value === 'true');

export const SuccessResponse = z.object({ success: z.literal(true), message: z.string() }).openapi('SuccessResponse', {
  description: 'An action that has nothing else to return.',
  example: { success: true, message: 'API key archived successfully' },
});

/** The timestamp every example shows, so examples read as one consistent account. */
export const EXAMPLE_TIME = '2026-03-02T15:04:05.000Z';
