import { createHash } from 'node:crypto';
import { jwtVerify } from 'jose';
import type { WebhookRequest } from '../../provider';
import { signaturesMatch } from '../../webhook-signatures';

/** Vonage documents no `iat` window; five minutes either way matches the other providers. */
export const VONAGE_IAT_TOLERANCE_SECONDS = 300;

/**
 * Signed callbacks carry `Authorization: Bearer <JWT>` signed HS256 with the account signature secret. The
 * algorithm is pinned (no `none`, no RS256 with the secret as a key), `iat` must be fresh, and a request with a
 * body must carry `payload_hash`, the hex SHA-256 of the raw body: a token without it could be lifted onto
 * any other body.
 */
export async function verifyVonageSignature(
  request: WebhookRequest,
  signatureSecret: string | undefined,
  now: Date,
): Promise<boolean> {
  return (await vonageSignedClaims(request, signatureSecret, now)) !== null;
}

/** The claims of a request's valid Vonage token (see verifyVonageSignature), or null. */
export async function vonageSignedClaims(
  request: WebhookRequest,
  signatureSecret: string | undefined,
  now: Date,
): Promise<Record<string, unknown> | null> {
  const token = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!signatureSecret || !token) return null;
  let claims: Record<string, unknown>;
  try {
    ({ payload: claims } = await jwtVerify(token, new TextEncoder().encode(signatureSecret), {
      algorithms: ['HS256'],
      currentDate: now,
    }));
  } catch {
    return null;
  }
  if (typeof claims.iat !== 'number') return null;
  if (Math.abs(now.getTime() / 1000 - claims.iat) > VONAGE_IAT_TOLERANCE_SECONDS) return null;
  if (claims.payload_hash === undefined) return request.rawBody === '' ? claims : null;
  return typeof claims.payload_hash === 'string' &&
    signaturesMatch(sha256Hex(request.rawBody), claims.payload_hash.toLowerCase())
    ? claims
    : null;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
