import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The `v2` signature of a post-call webhook, in the Standard Webhooks layout (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v2,<base64>`), over more than the body: the method and
 * the URL too, so a signed delivery cannot be replayed to another endpoint of the receiver or
 * turned into another method, and the delivery id, so a receiver that drops repeats by id cannot be
 * fed a signed body under a fresh id.
 */
export const V2_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

export interface SignedDelivery {
  /** The HTTP method, upper case. */
  method: string;
  /** The URL requested: the WHATWG form of the endpoint (`new URL(url).href`), without a fragment. */
  url: string;
  /** `webhook-id`: the same for every attempt of one delivery. */
  id: string;
  /** `webhook-timestamp`: unix seconds of this attempt. */
  timestamp: number;
  /** The body exactly as sent; empty for GET. */
  body: string;
}

/** The URL as it is signed: parsed, serialized, fragment dropped (it is never sent). */
export function signedUrl(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.href;
}

/**
 * `v2\n<METHOD>\n<URL>\n<id>\n<timestamp>\n<body>`: the method, URL, id and timestamp cannot hold a
 * line break (header values and serialized URLs never do), so no two deliveries sign the same text.
 */
export function v2SignedContent({ method, url, id, timestamp, body }: SignedDelivery): string {
  return ['v2', method.toUpperCase(), url, id, String(timestamp), body].join('\n');
}

const v2Digest = (key: Buffer, delivery: SignedDelivery): Buffer =>
  createHmac('sha256', key).update(v2SignedContent(delivery), 'utf8').digest();

/** The three `v2` headers; one `v2,<base64>` entry per key (the current secret first), space-separated. */
export function v2Headers(keys: readonly Buffer[], delivery: SignedDelivery): Record<string, string> {
  return {
    [V2_HEADERS.id]: delivery.id,
    [V2_HEADERS.timestamp]: String(delivery.timestamp),
    [V2_HEADERS.signature]: keys.map((key) => `v2,${v2Digest(key, delivery).toString('base64')}`).join(' '),
  };
}

/**
 * What a receiver does (docs/guides/post-call-webhooks.md shows the same steps): true when one
 * `v2` entry of `webhook-signature` signs this method, URL, id, timestamp and body under `key`,
 * and the timestamp is within `toleranceSeconds` of `now`.
 */
export function verifyV2(
  key: Buffer,
  request: { method: string; url: string; body: string; headers: Record<string, string | undefined> },
  { now = Date.now(), toleranceSeconds = 300 }: { now?: number; toleranceSeconds?: number } = {},
): boolean {
  const id = request.headers[V2_HEADERS.id];
  const timestampText = request.headers[V2_HEADERS.timestamp] ?? '';
  const timestamp = Number(timestampText);
  if (!id || !/^\d{1,12}$/.test(timestampText) || Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = v2Digest(key, { method: request.method, url: request.url, id, timestamp, body: request.body });
  return (request.headers[V2_HEADERS.signature] ?? '')
    .split(' ')
    .filter((entry) => entry.startsWith('v2,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'))
    .some((given) => given.length === expected.length && timingSafeEqual(given, expected));
}
