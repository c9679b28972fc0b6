import { createHash, timingSafeEqual } from 'node:crypto';
import type { WebhookRequest } from '../../provider';

/**
 * Cloudonix signs nothing we can check (its CDR "HMAC" is undocumented): its requests carry the domain API
 * key, as `x-cx-apikey` (what Dograh checks) or `Authorization: Bearer` (voice-application requests).
 */
export function verifyCloudonixKey(request: WebhookRequest, apiKey: string): boolean {
  const bearer = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  const presented = request.headers['x-cx-apikey'] ?? bearer;
  return presented !== undefined && constantTimeEquals(presented, apiKey);
}

/** Hashing first gives equal-length buffers, so neither the content nor the length leaks through timing. */
function constantTimeEquals(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}
