import { timingSafeEqual } from 'node:crypto';

/** Constant-time comparison of two signatures as strings. */
export function signaturesMatch(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The parameters of a form-encoded body, in arrival order (repeated keys kept). */
export function formParams(rawBody: string): [string, string][] {
  return [...new URLSearchParams(rawBody).entries()];
}

/** Form parameters as one value per key (the last wins), for reading fields. */
export function formFields(rawBody: string): Record<string, string> {
  return Object.fromEntries(formParams(rawBody));
}

/** Byte order, as the providers' SDKs sort keys and values. */
export function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** Keys sorted by byte, each with its distinct values sorted. */
export function sortedParams(params: [string, string][]): [string, string[]][] {
  const grouped = new Map<string, Set<string>>();
  for (const [key, value] of params) grouped.set(key, (grouped.get(key) ?? new Set()).add(value));
  return [...grouped.entries()]
    .sort(([a], [b]) => byteOrder(a, b))
    .map(([key, values]) => [key, [...values].sort(byteOrder)]);
}
