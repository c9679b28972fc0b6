import { InvalidError, UpstreamError } from '../domain/errors';
import { ProviderError, type WebhookRequest } from '../telephony/provider';
import type { RouteContext } from './route';

/**
 * A provider's webhook as it was sent, for signature checks: the public URL it called (signatures
 * cover it), lower-cased headers and the raw body.
 */
export function webhookRequest(ctx: RouteContext, publicBaseUrl: string): WebhookRequest {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(ctx.headers)) {
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const rawBody = (ctx.request as { rawBody?: string }).rawBody ?? '';
  return { method: ctx.method, url: `${publicBaseUrl.replace(/\/+$/, '')}${ctx.originalUrl}`, headers, rawBody };
}

/** What a provider sent, parsed; a payload that is not what was expected is the sender's mistake (400). */
export function providerEvent<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ProviderError) throw new InvalidError(error.message);
    throw error;
  }
}

/** A provider that answered a command with an error is a bad gateway (502); other errors go on. */
export async function viaProvider<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProviderError) throw new UpstreamError(error.message);
    throw error;
  }
}
