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

/** Positive integer path ids. */
export const IdParam = z.coerce.number().int().positive();

/** `page` (>= 1, default 1) and `limit` (1..100, default 50): every paged list takes these. */
export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
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

export const SuccessResponse = z
  .object({ success: z.literal(true), message: z.string() })
  .openapi('SuccessResponse', { description: 'An action that has nothing else to return.' });
