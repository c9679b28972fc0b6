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

/**
 * Sends one webhook request and answers its HTTP status, or throws a typed failure. The host is
 * resolved and checked first, and the socket connects to that checked address (a `lookup` that
 * answers it), so DNS cannot change between the check and the connection; TLS still verifies the
 * certificate against the host name. Redirects are not followed: their target was never checked.
 */
export async function sendWebhook(webhook: WebhookRequest, policy: AddressPolicy, timeoutMs: number): Promise<number> {
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
      req = send(url, { method: webhook.method, headers: webhook.headers, lookup, timeout: timeoutMs }, resolve);
    } catch (error) {
      // A header value Node refuses (a rendered line break, say) will not get better by retrying.
      reject(new WebhookRefusedError(`the request is invalid: ${(error as Error).message}`));
      return;
    }
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) => reject(new WebhookDeliveryError(`${url.host}: ${error.message}`)));
    req.end(webhook.body);
  });
  const answer = await readSome(response);
  const status = response.statusCode ?? 0;
  if (status >= 200 && status < 300) return status;
  const detail = `${url.host} answered ${status}${answer ? `: ${answer}` : ''}`;
  if (status >= 300 && status < 400) throw new WebhookRejectedError(`${detail} (redirects are not followed)`, status);
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) throw new WebhookRejectedError(detail, status);
  throw new WebhookDeliveryError(detail, status);
}

/** The start of the answer's body, for the logs; the rest is drained and dropped. */
async function readSome(response: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of response) {
    if (text.length < ERROR_BODY_CHARS) text += (chunk as Buffer).toString('utf8');
  }
  return text.slice(0, ERROR_BODY_CHARS).trim();
}
