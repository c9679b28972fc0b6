import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';

/** The cookie a browser holds after `POST /codec/login`; the Temporal UI sends it with "include credentials". */
export const CODEC_SESSION_COOKIE = 'switchboard_codec';
/** How long a browser may decode before its operator signs in again. */
export const CODEC_SESSION_SECONDS = 12 * 3600;

const signature = (operatorToken: string, expires: number): Buffer =>
  createHmac('sha256', operatorToken).update(`codec-session:${expires}`).digest();

/**
 * A codec session: `<expiry in ms>.<HMAC of it under OPERATOR_TOKEN>`. Nothing is stored: changing
 * OPERATOR_TOKEN ends every session, and a session cannot outlive its expiry.
 */
export function issueCodecSession(ctx: Context, operatorToken: string, now = Date.now()): void {
  const expires = now + CODEC_SESSION_SECONDS * 1000;
  const value = `${expires}.${signature(operatorToken, expires).toString('base64url')}`;
  ctx.cookies.set(CODEC_SESSION_COOKIE, value, {
    httpOnly: true,
    // The UI and the API are different origins of one site (ports of localhost, hosts of one
    // domain): the cookie goes with the UI's requests and with no other site's.
    sameSite: 'strict',
    secure: ctx.secure,
    path: '/codec',
    maxAge: CODEC_SESSION_SECONDS * 1000,
  });
}

/** True when the request carries an unexpired codec session signed under `operatorToken`. */
export function hasCodecSession(ctx: Context, operatorToken: string, now = Date.now()): boolean {
  const value = ctx.cookies.get(CODEC_SESSION_COOKIE);
  const match = value ? /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(value) : null;
  if (!match) return false;
  const expires = Number(match[1]);
  if (expires <= now) return false;
  return timingSafeEqual(Buffer.from(match[2] ?? '', 'base64url'), signature(operatorToken, expires));
}
