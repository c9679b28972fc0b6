import { z } from '../zod';
import { JSON_LIMITS, jsonDepthExceeds } from '../../domain/limits';

/** A JSON object of bounded depth and size; a breach answers 422 with the bound in the message. */
export const boundedJsonObject = (description?: string) =>
  z
    .record(z.string(), z.unknown())
    .superRefine((value, ctx) => {
      if (jsonDepthExceeds(value, JSON_LIMITS.depth)) {
        ctx.addIssue({ code: 'custom', message: `nests deeper than ${JSON_LIMITS.depth} levels` });
        return;
      }
      if (Buffer.byteLength(JSON.stringify(value), 'utf8') > JSON_LIMITS.bytes) {
        ctx.addIssue({ code: 'custom', message: `is larger than ${JSON_LIMITS.bytes} bytes as JSON` });
      }
    })
    .openapi({
      description: [description, `At most ${JSON_LIMITS.depth} levels deep and ${JSON_LIMITS.bytes} bytes as JSON.`]
        .filter(Boolean)
        .join(' '),
    });
