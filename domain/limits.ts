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
