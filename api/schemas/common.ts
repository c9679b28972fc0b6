import { z } from '../zod';
import {
  boundedText,
  codePoints,
  IsoDateTime as DomainIsoDateTime,
  MAX_ID,
  RowId,
  SPACE,
} from '../../domain/input-rules';

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

export { MAX_ID };

// Copies made here, after zod learned `.openapi()`: the domain's schemas may have been built before.

/** An ISO 8601 date-time with an offset, read as UTC (see the domain's rule). */
export const IsoDateTime = DomainIsoDateTime.clone();

/** A path or query id: a decimal integer from 1 to `MAX_ID`. */
export const IdParam = z.coerce.number().int().min(1).max(MAX_ID);

/** An id in a JSON body: an integer from 1 to `MAX_ID`. */
export const BodyId = RowId.clone();

/**
 * At least one character that is neither whitespace nor NUL, and no NUL anywhere. Linear: the
 * leading run takes only whitespace and the next character none, so every character has one way to
 * match and a failure never backtracks more than the text once (clients run this `pattern` too).
 */
const NOT_BLANK = new RegExp(`^[${SPACE}]*[^\\u0000${SPACE}][^\\u0000]*$`);

/** Free text (see `boundedText`), with its limit in the document. */
export const text = (max: number) => boundedText(max).openapi({ maxLength: max });

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

/**
 * `true` when a schema documents exactly a domain type: each is assignable to the other. Each
 * `Documents<…>` alias beside a schema fails the build when the schema and the domain's type drift
 * apart, so the document stays true to what the domain answers and takes.
 */
export type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type Documents<Check extends true> = Check;
