import type { z } from 'zod';
import { AddressRefusedError } from '../platform/address-guard';
import { ProviderError, type ProviderContext } from './provider';
import { parseJson } from '../platform/json';

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_MESSAGE_LENGTH = 300;

export interface ProviderRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query, appended to the provider's origin (or `context.apiBaseUrl`). */
  path: string;
  headers?: Record<string, string>;
  /** Sent as `application/json`. */
  json?: unknown;
  /** Sent as `application/x-www-form-urlencoded`; array values repeat the key. */
  form?: Record<string, string | string[]>;
}

export interface ProviderResponse {
  status: number;
  /** Parsed JSON, or null for an empty or non-JSON body. */
  body: unknown;
}

/**
 * Calls a provider's HTTP API. Non-2xx answers and network failures become ProviderError with the
 * provider's own message and status; 429, 5xx, timeouts and unreachable hosts are retryable. Error
 * messages never carry the URL, the request or the credentials (account ids sit in the URL).
 */
export async function callProvider(
  providerLabel: string,
  defaultOrigin: string,
  context: ProviderContext,
  request: ProviderRequest,
): Promise<ProviderResponse> {
  const origin = (context.apiBaseUrl ?? defaultOrigin).replace(/\/+$/, '');
  const timeoutMs = context.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  let body: string | undefined;
  if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.json);
  } else if (request.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = encodeForm(request.form);
  }
  let response: Response;
  try {
    response = await (context.fetch ?? fetch)(`${origin}${request.path}`, {
      method: request.method,
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    // Checked by name: the DOMException fetch throws may come from another realm than `Error`.
    // A tenant's endpoint at a refused address stays refused: not worth retrying.
    if (error instanceof AddressRefusedError) throw new ProviderError(`${providerLabel}: ${error.message}`);
    const name = (error as { name?: unknown } | null)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new ProviderError(`${providerLabel} did not answer within ${timeoutMs} ms`, undefined, true);
    }
    throw new ProviderError(`${providerLabel} could not be reached`, undefined, true);
  }
  const text = await readText(response, providerLabel, timeoutMs);
  const parsed = parseJson(text);
  if (!response.ok) {
    const retryable = response.status === 429 || response.status >= 500;
    const message = providerMessage(parsed) ?? response.statusText;
    throw new ProviderError(
      `${providerLabel} answered ${response.status}${message ? `: ${message}` : ''}`,
      response.status,
      retryable,
      response.status === 429 ? retryAfterSeconds(response.headers.get('retry-after')) : undefined,
    );
  }
  return { status: response.status, body: parsed };
}

/** The body checked against the fields the adapter reads; anything else is a ProviderError. */
export function readBody<T>(providerLabel: string, schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ProviderError(`${providerLabel} answered with an unexpected body`);
  return parsed.data;
}

/** A provider waits at most this long before we dial again, whatever its `Retry-After` says. */
export const MAX_RETRY_AFTER_SECONDS = 300;

/**
 * `Retry-After` as seconds (delta-seconds or an HTTP date), bounded by `MAX_RETRY_AFTER_SECONDS`;
 * undefined when absent or unreadable.
 */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (!header || header.length > 64) return undefined;
  const trimmed = header.trim();
  // An HTTP date names its weekday and month; anything else that is not digits is unreadable.
  if (!/^\d+$/.test(trimmed) && !/^[A-Za-z]{3},/.test(trimmed)) return undefined;
  const seconds = /^\d+$/.test(trimmed) ? Number(trimmed) : (Date.parse(trimmed) - now) / 1000;
  if (!Number.isFinite(seconds)) return undefined;
  return Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_SECONDS);
}

/** Null when the provider answered 404 (it does not know the resource); other errors propagate. */
export async function unlessNotFound<T>(request: Promise<T>): Promise<T | null> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof ProviderError && error.status === 404) return null;
    throw error;
  }
}

/** A `configureInbound` result from a provider error, which configureInbound reports instead of throwing. */
export function syncFailure(error: unknown): { ok: false; message: string } {
  if (error instanceof ProviderError) return { ok: false, message: error.message };
  throw error;
}

export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

export function encodeForm(form: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(form)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, item);
  }
  return params.toString();
}

async function readText(response: Response, providerLabel: string, timeoutMs: number): Promise<string> {
  try {
    return await response.text();
  } catch {
    throw new ProviderError(`${providerLabel} did not answer within ${timeoutMs} ms`, undefined, true);
  }
}

/** The human-readable part of a provider's error body (`message`, `error` or `detail`). */
function providerMessage(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['message', 'error', 'detail']) {
    const value = record[key];
    if (typeof value === 'string' && value) return value.slice(0, MAX_MESSAGE_LENGTH);
  }
  // Telnyx (JSON:API style): `{"errors": [{"title": "...", "detail": "..."}]}`.
  const [first] = Array.isArray(record.errors) ? (record.errors as unknown[]) : [];
  if (first && typeof first === 'object') {
    const { detail, title } = first as Record<string, unknown>;
    const text = typeof detail === 'string' && detail ? detail : typeof title === 'string' ? title : undefined;
    if (text) return text.slice(0, MAX_MESSAGE_LENGTH);
  }
  return undefined;
}
