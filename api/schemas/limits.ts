import { z } from '../zod';

/**
 * Bounds on what a tenant may store in an agent: every prompt and free text is rendered on the API,
 * the worker and the live-audio path, so none may grow without limit.
 */
export const TEXT_LIMITS = {
  /** Node and variable names, ids, labels. */
  name: 255,
  /** A node's prompt: long instructions fit, a megabyte of filler does not. */
  prompt: 32_000,
  /** Greetings, conditions, extraction prompts, header values and other short texts. */
  text: 4_000,
  url: 2_048,
} as const;

export const GRAPH_LIMITS = { nodes: 200, edges: 1_000, webhookNodes: 10, customHeaders: 20 } as const;

/**
 * Free JSON (`initial_context`, payload templates, context variables, call settings, phone number
 * metadata): nesting depth and serialized size. A whole agent definition may nest deeper, by the
 * four levels its own structure takes before a node's free fields (definition, `nodes`, node,
 * `data`); its size is bounded by the body limit.
 */
export const JSON_LIMITS = { depth: 16, bytes: 64 * 1024, definitionDepth: 16 + 4 } as const;

/**
 * How deeply `value` nests, counted without recursion so that a hostile document cannot exhaust the
 * stack while being measured; stops counting once `limit` is passed.
 */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop() as [unknown, number];
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return false;
}

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
