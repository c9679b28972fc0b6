import { createHash, createHmac } from 'node:crypto';
import type { WebhookRequest } from '../../provider';
import { formParams, signaturesMatch, sortedParams } from '../../webhook-signatures';

/**
 * `X-Twilio-Signature`: base64 HMAC-SHA1 under the auth token of the exact URL Twilio called
 * followed by every POST parameter as key+value, keys (and a repeated key's distinct values) in
 * byte order.
 */
export function twilioSignature(authToken: string, url: string, params: [string, string][]): string {
  let data = url;
  for (const [key, values] of sortedParams(params)) for (const value of values) data += key + value;
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/**
 * Checks a Twilio webhook. Form bodies are signed with their parameters; JSON bodies carry
 * `bodySHA256` in the URL, which must match the body. Proxies add or drop default ports, so the URL
 * is also tried with and without one, as Twilio's SDK does. The scheme has no timestamp: replays
 * are harmless because status processing is idempotent (CallSid + SequenceNumber).
 */
export function verifyTwilioSignature(authToken: string, request: WebhookRequest): boolean {
  const given = request.headers['x-twilio-signature'];
  if (!given) return false;
  const bodyHash = bodyHashParam(request.url);
  if (bodyHash !== null) {
    const actual = createHash('sha256').update(request.rawBody, 'utf8').digest('hex');
    if (!signaturesMatch(actual, bodyHash)) return false;
  }
  const params = bodyHash === null ? formParams(request.rawBody) : [];
  return urlVariants(request.url).some((url) => signaturesMatch(twilioSignature(authToken, url, params), given));
}

function bodyHashParam(url: string): string | null {
  const query = url.split('#')[0]?.split('?')[1];
  return query === undefined ? null : new URLSearchParams(query).get('bodySHA256');
}

/** The URL as given, without its port, and with the scheme's default port. Never re-encoded. */
export function urlVariants(url: string): string[] {
  const match = /^(https?):\/\/([^/?#]*)(.*)$/i.exec(url);
  if (!match) return [url];
  const [, scheme = '', authority = '', rest = ''] = match;
  const host = authority.replace(/:\d+$/, '');
  const defaultPort = scheme.toLowerCase() === 'https' ? 443 : 80;
  return [...new Set([url, `${scheme}://${host}${rest}`, `${scheme}://${host}:${defaultPort}${rest}`])];
}
