import type { WebhookRequest } from '../telephony/provider';
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
