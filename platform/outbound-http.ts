import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { AddressRefusedError, checkedAddress, pinnedLookup, type AddressPolicy } from './address-guard';

/**
 * One HTTP request to a URL a tenant chose (webhooks, tools, pre-call fetch): the host is resolved
 * and checked first and the socket connects to that checked address, so DNS cannot change between
 * the check and the connection (TLS still verifies the certificate against the host name). Redirects
 * are followed only when asked, each target checked the same way.
 */

export interface OutboundRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Sent as is. Undefined: no body. */
  body?: string;
}

export interface OutboundLimits {
  /** Longest silence on the socket, ms. */
  timeoutMs: number;
  /** The whole exchange (resolving, connecting, sending, reading the answer), ms. */
  deadlineMs: number;
  /** The most of the answer's body read; past it the connection is dropped, not drained. */
  maxAnswerBytes: number;
  /** Aborts the request (an activity cancelled, a worker stopping). */
  signal?: AbortSignal;
  /** How many redirects to follow (0: none, the 3xx is the answer). */
  maxRedirects?: number;
  /** Headers not sent on to another origin after a redirect (credentials). */
  privateHeaders?: readonly string[];
}

export interface OutboundAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body was longer than `maxAnswerBytes` and was cut there. */
  truncated: boolean;
  /** The URL that answered (after redirects). */
  url: string;
}

/** The request cannot be sent as it is (a bad URL, a refused address): trying again will not help. */
export class OutboundRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

/** The exchange failed on the way (timeout, connection refused, reset, cancelled). */
export class OutboundNetworkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundNetworkError';
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The URL, checked to be http(s). */
export function outboundUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefusedError(`${raw} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundRefusedError(`${url.protocol} URLs are not allowed, only http and https`);
  }
  return url;
}

async function readBody(response: IncomingMessage, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    const buffer = chunk as Buffer;
    chunks.push(buffer);
    size += buffer.length;
    if (size > maxBytes) {
      response.destroy();
      return { body: Buffer.concat(chunks).subarray(0, maxBytes), truncated: true };
    }
  }
  return { body: Buffer.concat(chunks), truncated: false };
}

async function exchange(
  request: OutboundRequest,
  url: URL,
  policy: AddressPolicy,
  limits: OutboundLimits,
  signal: AbortSignal,
  failure: (error: Error) => Error,
): Promise<OutboundAnswer> {
  let lookup;
  try {
    lookup = pinnedLookup(await checkedAddress(url.hostname, policy));
  } catch (error) {
    if (error instanceof AddressRefusedError) throw new OutboundRefusedError(error.message);
    throw error;
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    let req: ReturnType<typeof send>;
    try {
      req = send(
        url,
        { method: request.method, headers: request.headers, lookup, timeout: limits.timeoutMs, signal },
        resolve,
      );
    } catch (error) {
      // A header value Node refuses (a rendered line break, say) will not get better by retrying.
      reject(new OutboundRefusedError(`the request is invalid: ${(error as Error).message}`));
      return;
    }
    req.on('timeout', () => req.destroy(new Error(`no answer within ${limits.timeoutMs} ms`)));
    req.on('error', (error) => reject(failure(error)));
    req.end(request.body);
  });
  try {
    const { body, truncated } = await readBody(response, limits.maxAnswerBytes);
    return { status: response.statusCode ?? 0, headers: response.headers, body, truncated, url: url.toString() };
  } catch (error) {
    throw failure(error as Error);
  }
}

/** Sends `request` and answers whatever status came back; throws OutboundRefusedError or OutboundNetworkError. */
export async function guardedRequest(
  request: OutboundRequest,
  policy: AddressPolicy,
  limits: OutboundLimits,
): Promise<OutboundAnswer> {
  const deadline = AbortSignal.timeout(limits.deadlineMs);
  const signal = limits.signal ? AbortSignal.any([deadline, limits.signal]) : deadline;
  let url = outboundUrl(request.url);
  let current = request;
  for (let hop = 0; ; hop += 1) {
    const host = url.host;
    const failure = (error: Error): Error => {
      if (limits.signal?.aborted) return new OutboundNetworkError(`${host}: the request was cancelled`);
      if (deadline.aborted)
        return new OutboundNetworkError(`${host}: no complete answer within ${limits.deadlineMs} ms`);
      return new OutboundNetworkError(`${host}: ${error.message}`);
    };
    const answer = await exchange(current, url, policy, limits, signal, failure);
    const location = answer.headers.location;
    if (!REDIRECTS.has(answer.status) || !location || hop >= (limits.maxRedirects ?? 0)) return answer;
    const next = outboundUrl(new URL(location, url).toString());
    // 303, and 301/302 after a POST as browsers do, become a GET without a body.
    const asGet =
      answer.status === 303 || ((answer.status === 301 || answer.status === 302) && current.method === 'POST');
    const crossOrigin = next.origin !== url.origin;
    const strip = new Set((limits.privateHeaders ?? []).map((name) => name.toLowerCase()));
    const headers = Object.fromEntries(
      Object.entries(current.headers).filter(
        ([name]) =>
          !(crossOrigin && strip.has(name.toLowerCase())) &&
          !(asGet && ['content-type', 'content-length'].includes(name.toLowerCase())),
      ),
    );
    current = asGet ? { method: 'GET', url: next.toString(), headers } : { ...current, url: next.toString(), headers };
    url = next;
  }
}
