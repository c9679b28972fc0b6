import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { AddressRefusedError, checkedAddress, pinnedLookup, type AddressPolicy } from '../../platform/address-guard';
import { WebhookDeliveryError, WebhookRefusedError, WebhookRejectedError } from './errors';

export interface WebhookRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Sent as is; the signature covers these exact bytes. Undefined: no body (GET). */
  body?: string;
}

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
 * Sends one webhook request and answers its HTTP status, or throws a typed failure. The host is
 * resolved and checked first, and the socket connects to that checked address (a `lookup` that
 * answers it), so DNS cannot change between the check and the connection; TLS still verifies the
 * certificate against the host name. Redirects are not followed: their target was never checked.
 */
export async function sendWebhook(
  webhook: WebhookRequest,
  policy: AddressPolicy,
  limits: SendLimits = DEFAULT_SEND_LIMITS,
): Promise<number> {
  const { timeoutMs, deadlineMs, maxAnswerBytes } = limits;
  const deadline = AbortSignal.timeout(deadlineMs);
  const signal = limits.signal ? AbortSignal.any([deadline, limits.signal]) : deadline;
  const failure = (error: Error, host: string): Error => {
    if (limits.signal?.aborted) return new WebhookDeliveryError(`${host}: the delivery was cancelled`);
    if (deadline.aborted) return new WebhookDeliveryError(`${host}: no complete answer within ${deadlineMs} ms`);
    return new WebhookDeliveryError(`${host}: ${error.message}`);
  };
  let url: URL;
  try {
    url = new URL(webhook.url);
  } catch {
    throw new WebhookRefusedError(`${webhook.url} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebhookRefusedError(`${url.protocol} URLs are not allowed, only http and https`);
  }
  let lookup;
  try {
    lookup = pinnedLookup(await checkedAddress(url.hostname, policy));
  } catch (error) {
    if (error instanceof AddressRefusedError) throw new WebhookRefusedError(error.message);
    throw error;
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    let req: ReturnType<typeof send>;
    try {
      req = send(
        url,
        { method: webhook.method, headers: webhook.headers, lookup, timeout: timeoutMs, signal },
        resolve,
      );
    } catch (error) {
      // A header value Node refuses (a rendered line break, say) will not get better by retrying.
      reject(new WebhookRefusedError(`the request is invalid: ${(error as Error).message}`));
      return;
    }
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) => reject(failure(error, url.host)));
    req.end(webhook.body);
  });
  let answer: string;
  try {
    answer = await readSome(response, maxAnswerBytes);
  } catch (error) {
    throw failure(error as Error, url.host);
  }
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) return status;
  const detail = `${url.host} answered ${status}${answer ? `: ${answer}` : ''}`;
  if (status >= 300 && status < 400) throw new WebhookRejectedError(`${detail} (redirects are not followed)`, status);
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) throw new WebhookRejectedError(detail, status);
  throw new WebhookDeliveryError(detail, status);
}

/** The start of the answer's body, for the logs; past `maxBytes` the connection is dropped, not drained. */
async function readSome(response: IncomingMessage, maxBytes: number): Promise<string> {
  let text = '';
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (text.length < ERROR_BODY_CHARS) text += (chunk as Buffer).toString('utf8');
    if (size >= maxBytes) {
      response.destroy();
      break;
    }
  }
  return text.slice(0, ERROR_BODY_CHARS).trim();
}
