import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header that carries the signature of a post-call webhook. */
export const SIGNATURE_HEADER = 'X-Switchboard-Signature';

const signed = (key: Buffer, timestamp: number, body: string): string =>
  createHmac('sha256', key).update(`${timestamp}.${body}`, 'utf8').digest('hex');

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the timestamp is signed too, so a receiver
 * that rejects old timestamps cannot be fed a replayed request.
 */
export function signatureHeader(key: Buffer, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${signed(key, timestamp, body)}`;
}

/** What a receiver does (docs/guides/post-call-webhooks.md shows the same steps): true when the header signs `body` within `toleranceSeconds`. */
export function verifySignatureHeader(
  key: Buffer,
  body: string,
  header: string,
  { now = Date.now(), toleranceSeconds = 300 }: { now?: number; toleranceSeconds?: number } = {},
): boolean {
  const parts = new Map(header.split(',').map((part) => part.trim().split('=', 2) as [string, string]));
  const timestamp = Number(parts.get('t'));
  const given = Buffer.from(parts.get('v1') ?? '', 'hex');
  if (!Number.isInteger(timestamp) || Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signed(key, timestamp, body), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
