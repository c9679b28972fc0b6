import type { AddressPolicy } from '../../platform/address-guard';
import { guardedRequest, OutboundRefusedError, type OutboundRequest } from '../../platform/outbound-http';
import { WebhookDeliveryError, WebhookRefusedError, WebhookRejectedError } from './delivery-errors';

export type WebhookRequest = OutboundRequest;

/** How much of a failed answer is kept in the run's logs. */
const ERROR_BODY_CHARS = 300;

export interface SendLimits {
  /** Longest silence on the socket, ms. */
  timeoutMs: number;
  /** The whole delivery (resolving, connecting, sending, reading the answer), ms: a receiver that drips its answer is cut off. */
  deadlineMs: number;
  /** The most of the answer's body read; the rest is not waited for. */
  maxAnswerBytes: number;
  /** Aborts the delivery (the activity was cancelled, or its worker is stopping). */
  signal?: AbortSignal;
}

export const DEFAULT_SEND_LIMITS: SendLimits = { timeoutMs: 10_000, deadlineMs: 20_000, maxAnswerBytes: 64 * 1024 };

/**
 * Sends one webhook request through the address guard (platform/outbound-http.ts) and answers its
 * HTTP status, or throws a typed failure. Redirects are not followed: a webhook's receiver is the
 * URL the tenant gave.
 */
export async function sendWebhook(
  webhook: WebhookRequest,
  policy: AddressPolicy,
  limits: SendLimits = DEFAULT_SEND_LIMITS,
): Promise<number> {
  let answer;
  try {
    answer = await guardedRequest(webhook, policy, { ...limits, maxRedirects: 0 });
  } catch (error) {
    if (error instanceof OutboundRefusedError) throw new WebhookRefusedError(error.message);
    throw new WebhookDeliveryError((error as Error).message);
  }
  const { status } = answer;
  if (status >= 200 && status < 300) return status;
  const text = answer.body.toString('utf8').slice(0, ERROR_BODY_CHARS).trim();
  const detail = `${new URL(answer.url).host} answered ${status}${text ? `: ${text}` : ''}`;
  if (status >= 300 && status < 400) throw new WebhookRejectedError(`${detail} (redirects are not followed)`, status);
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) throw new WebhookRejectedError(detail, status);
  throw new WebhookDeliveryError(detail, status);
}
