import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkedAddress, pinnedLookup, type AddressPolicy } from './address-guard';

/** Answers larger than this are cut off with an error: no tenant's server may fill our memory. */
export const GUARDED_FETCH_MAX_BODY_BYTES = 1024 * 1024;

/** Statuses whose Response must have no body. */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for URLs a tenant chose: the host's addresses are checked against `policy` and the
 * socket connects to the checked address only (a second DNS answer never reaches it). Redirects are
 * not followed, and the body is read up to `maxBodyBytes`. Throws AddressRefusedError for a refused
 * address. Only what provider clients send is supported: string bodies and plain header records.
 */
export function guardedFetch(policy: AddressPolicy, maxBodyBytes = GUARDED_FETCH_MAX_BODY_BYTES): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : input);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`${url.protocol} is not http(s)`);
    const lookup = pinnedLookup(await checkedAddress(url.hostname, policy));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = send(
        url,
        { method: init.method ?? 'GET', headers, lookup, signal: init.signal ?? undefined },
        resolve,
      );
      req.on('error', reject);
      req.end(typeof init.body === 'string' ? init.body : undefined);
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response) {
      size += (chunk as Buffer).length;
      if (size > maxBodyBytes) {
        response.destroy();
        throw new Error(`the answer is larger than ${maxBodyBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    const status = response.statusCode ?? 0;
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
        responseHeaders.append(name, item);
      }
    }
    return new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), {
      status,
      statusText: response.statusMessage,
      headers: responseHeaders,
    });
  };
}
