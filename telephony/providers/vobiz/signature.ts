import { createHmac } from 'node:crypto';
import type { WebhookRequest } from '../../provider';
import { formParams } from '../../webhook-signatures';
import { anySignatureMatches, plivoV3Signature } from '../plivo-compatible/signature-v3';

/** Vobiz V3 as documented: base64 HMAC-SHA256 under the auth token of the URL without its query, `.`, the nonce. */
export function vobizV3Signature(authToken: string, url: string, nonce: string): string {
  const base = url.split('#')[0]?.split('?')[0] ?? '';
  return createHmac('sha256', authToken).update(`${base}.${nonce}`, 'utf8').digest('base64');
}

/**
 * `X-Vobiz-Signature-V3` with its nonce. A Vobiz page claims the scheme is Plivo's V3 instead, so
 * that string is accepted as a second candidate.
 */
export function vobizSignatureValid(authToken: string, request: WebhookRequest): boolean {
  const signature = request.headers['x-vobiz-signature-v3'];
  const nonce = request.headers['x-vobiz-signature-v3-nonce'];
  if (!signature || !nonce) return false;
  const params = request.method.toUpperCase() === 'GET' ? [] : formParams(request.rawBody);
  return (
    anySignatureMatches(signature, vobizV3Signature(authToken, request.url, nonce)) ||
    anySignatureMatches(signature, plivoV3Signature(authToken, request.method, request.url, params, nonce))
  );
}
