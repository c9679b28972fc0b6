import { createHash } from 'node:crypto';
import { ProviderError, type WebhookRequest } from './provider';

/** The query parameter of a transfer callback URL that names the transfer its events belong to. */
export const TRANSFER_ID_PARAM = 'transfer_id';

/**
 * A transfer's id from its idempotency key: the same key names the same transfer, so events of a
 * leg started by a retried request still reach the workflow that asked for it.
 */
export function transferIdOf(idempotencyKey: string): string {
  return `tr${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 24)}`;
}

/**
 * A transfer id that also says when the transfer started (unix seconds), for providers whose legs
 * are found by the call they belong to and their start: a retried start is a new transfer there.
 */
export function timedTransferId(idempotencyKey: string, startedAt: Date): string {
  return `${transferIdOf(idempotencyKey)}.${Math.floor(startedAt.getTime() / 1000)}`;
}

/** When a `timedTransferId` transfer started; null for an id that says nothing of it. */
export function transferStartOf(transferId: string): Date | null {
  const match = /\.(\d{9,11})$/.exec(transferId);
  return match ? new Date(Number(match[1]) * 1000) : null;
}

/**
 * Where one transfer's events go: the run's transfer callback naming the transfer, for providers
 * whose destination-leg events carry nothing of ours. Signatures cover the whole URL.
 */
export function transferCallbackFor(callbackUrl: string, transferId: string): string {
  const url = new URL(callbackUrl);
  url.searchParams.set(TRANSFER_ID_PARAM, transferId);
  return url.toString();
}

/** The transfer id a callback URL names; a ProviderError when it names none. */
export function transferIdOfCallback(request: WebhookRequest, provider: string): string {
  const query = request.url.split('#')[0]?.split('?')[1] ?? '';
  const transferId = new URLSearchParams(query).get(TRANSFER_ID_PARAM);
  if (!transferId) throw new ProviderError(`${provider} transfer webhook names no transfer`);
  return transferId;
}

/** SIP URIs are dialed as SIP; anything else is a phone number. */
export const isSipAddress = (destination: string): boolean => /^sips?:/i.test(destination);
