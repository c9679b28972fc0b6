import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header that carries the signature of a post-call webhook. */
export const SIGNATURE_HEADER = 'X-Switchboard-Signature';

const signed = (key: Buffer, timestamp: number, body: string): string =>
  createHmac('sha256', key).update(`${timestamp}.${body}`, 'utf8').digest('hex');

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, one `v1` per key (the current secret
 * first; after a rotation, the previous one too until its overlap ends, as Stripe does). The
 * timestamp is signed too, so a receiver that rejects old timestamps cannot be fed a replayed request.
 */
export function signatureHeader(keys: Buffer | readonly Buffer[], body: string, timestamp: number): string {
  const all = Buffer.isBuffer(keys) ? [keys] : keys;
  return [`t=${timestamp}`, ...all.map((key) => `v1=${signed(key, timestamp, body)}`)].join(',');
}

/**
 * What a receiver does (docs/guides/post-call-webhooks.md shows the same steps): true when one of
 * the header's `v1` entries signs `body` under `key` within `toleranceSeconds`.
 */
export function verifySignatureHeader(
  key: Buffer,
  body: string,
  header: string,
  { now = Date.now(), toleranceSeconds = 300 }: { now?: number; toleranceSeconds?: number } = {},
): boolean {
  const parts = header.split(',').map((part) => part.trim().split('=', 2) as [string, string?]);
  const timestamp = Number(parts.find(([name]) => name === 't')?.[1]);
  if (!Number.isInteger(timestamp) || Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signed(key, timestamp, body), 'hex');
  return parts
    .filter(([name]) => name === 'v1')
    .map(([, value]) => Buffer.from(value ?? '', 'hex'))
    .some((given) => given.length === expected.length && timingSafeEqual(given, expected));
}
