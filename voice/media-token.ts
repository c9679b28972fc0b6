import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Secrets } from '../telephony/secrets';

/** The purpose string of the key derived from SECRETS_KEY (see `Secrets.deriveKey`). */
export const MEDIA_TOKEN_PURPOSE = 'media-token';

export const mediaTokenKey = (secrets: Pick<Secrets, 'deriveKey'>): Buffer => secrets.deriveKey(MEDIA_TOKEN_PURPOSE);

/**
 * How long a media URL may be used to connect. It is checked once, at connection: it must outlive
 * the ringing of an outbound call whose originate request already carries the URL (Telnyx,
 * Cloudonix), while a leaked URL stops working soon after the call.
 */
export const MEDIA_TOKEN_TTL_SECONDS = 600;

export interface MediaTokenClaims {
  provider: string;
  runId: number;
}

export type MediaTokenCheck = 'valid' | 'expired' | 'invalid';

const mac = (key: Buffer, { provider, runId }: MediaTokenClaims, expires: number): Buffer =>
  createHmac('sha256', key).update(`media:${provider}:${runId}:${expires}`).digest();

/** `<expiry, unix seconds>.<base64url HMAC-SHA256 over provider, run id and expiry>`: URL-safe. */
export function signMediaToken(
  key: Buffer,
  claims: MediaTokenClaims,
  now = Date.now(),
  ttlSeconds = MEDIA_TOKEN_TTL_SECONDS,
): string {
  const expires = Math.floor(now / 1000) + ttlSeconds;
  return `${expires}.${mac(key, claims, expires).toString('base64url')}`;
}

/** Checks the MAC in constant time before looking at the expiry, so a forged expiry learns nothing. */
export function verifyMediaToken(
  key: Buffer,
  token: string,
  claims: MediaTokenClaims,
  now = Date.now(),
): MediaTokenCheck {
  const match = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match?.[1] || !match[2]) return 'invalid';
  const expires = Number(match[1]);
  const given = Buffer.from(match[2], 'base64url');
  const expected = mac(key, claims, expires);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return Math.floor(now / 1000) < expires ? 'valid' : 'expired';
}

/**
 * Providers whose stream URL must not carry a query string: Twilio documents that `<Stream url>`
 * takes none (error 31922: pass values as nested `<Parameter>`s), so its token is the last path
 * segment instead. The endpoint accepts either form.
 */
const TOKEN_IN_PATH = new Set(['twilio']);

/**
 * A provider-facing media URL with its token: `wss://…/telephony/{provider}/media/{run_id}?token=…`,
 * or `…/media/{run_id}/{token}` for Twilio. The token is URL-safe as it is.
 */
export function mediaStreamUrl(publicBaseUrl: string, key: Buffer, claims: MediaTokenClaims, now = Date.now()): string {
  const base = `${publicBaseUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/api/v1/telephony/${claims.provider}/media/${claims.runId}`;
  const token = signMediaToken(key, claims, now);
  return TOKEN_IN_PATH.has(claims.provider) ? `${base}/${token}` : `${base}?token=${token}`;
}
