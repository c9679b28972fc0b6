import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { WebhookRequest } from '../../provider';

/** The Telnyx SDKs reject webhooks older (or further in the future) than five minutes. */
export const TELNYX_TIMESTAMP_TOLERANCE_SECONDS = 300;

/** DER prefix that turns a raw 32-byte Ed25519 public key into an SPKI structure (RFC 8410). */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Mission Control shows the public key as base64 of the raw 32 bytes; null when it is not one. */
export function telnyxPublicKey(base64Key: string): KeyObject | null {
  const raw = Buffer.from(base64Key.trim(), 'base64');
  if (raw.length !== 32) return null;
  try {
    return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  } catch {
    return null;
  }
}

/**
 * The `connection_id` a webhook's payload names, if any. Telnyx signs every account's webhooks with
 * keys anyone may copy into a configuration, so the signature alone does not say whose call it is.
 */
export function telnyxConnectionId(rawBody: string): string | undefined {
  try {
    const body = JSON.parse(rawBody) as { data?: { payload?: { connection_id?: unknown } } };
    const id = body.data?.payload?.connection_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Ed25519 over `${telnyx-timestamp}|${raw body}`, within the replay window. */
export function verifyTelnyxSignature(request: WebhookRequest, publicKey: KeyObject | null, now: Date): boolean {
  const signature = request.headers['telnyx-signature-ed25519'];
  const timestamp = request.headers['telnyx-timestamp'];
  if (!publicKey || !signature || !timestamp || !/^\d+$/.test(timestamp)) return false;
  const ageSeconds = now.getTime() / 1000 - Number(timestamp);
  if (Math.abs(ageSeconds) > TELNYX_TIMESTAMP_TOLERANCE_SECONDS) return false;
  const signatureBytes = Buffer.from(signature, 'base64');
  if (signatureBytes.length !== 64) return false;
  return verify(null, Buffer.from(`${timestamp}|${request.rawBody}`, 'utf8'), publicKey, signatureBytes);
}
