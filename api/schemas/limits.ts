import { z } from '../zod';
import { JSON_LIMITS, jsonDepthExceeds } from '../../domain/limits';

/**
 * A refinement bounding any JSON value's depth and, when `bytes` is given, its serialized size; a
 * breach answers 422 with the bound in the message. PostgreSQL refuses (500) or stores and later
 * chokes on deeper documents, so every free-form field the API stores goes through one.
 */
export const jsonBounds =
  ({ depth = JSON_LIMITS.depth, bytes }: { depth?: number; bytes?: number } = {}) =>
  (value: unknown, ctx: z.RefinementCtx): void => {
    if (jsonDepthExceeds(value, depth)) {
      ctx.addIssue({ code: 'custom', message: `nests deeper than ${depth} levels` });
      return;
    }
    if (bytes !== undefined && Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8') > bytes) {
      ctx.addIssue({ code: 'custom', message: `is larger than ${bytes} bytes as JSON` });
    }
  };

/** The sentence the OpenAPI document gives a field bounded by the default `jsonBounds`. */
export const JSON_BOUNDS_DESCRIPTION = `At most ${JSON_LIMITS.depth} levels deep and ${JSON_LIMITS.bytes} bytes as JSON.`;

/** A JSON object of bounded depth and size; a breach answers 422 with the bound in the message. */
export const boundedJsonObject = (description?: string) =>
  z
    .record(z.string(), z.unknown())
    .superRefine(jsonBounds({ bytes: JSON_LIMITS.bytes }))
    .openapi({
      description: [description, JSON_BOUNDS_DESCRIPTION].filter(Boolean).join(' '),
    });
