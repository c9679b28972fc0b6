import { mediaStreamUrl, mediaTokenKey } from '../voice/media-token';
import { ProviderError, type ProviderReply, type WebhookRequest } from './provider';
import type { Secrets } from './secrets';
import { jsonObjectBody } from './status-fields';
import { formFields } from './webhook-signatures';

/** Escapes text for an XML attribute or element. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export function xmlReply(document: string): ProviderReply {
  return { contentType: 'text/xml', body: `<?xml version="1.0" encoding="UTF-8"?>${document}` };
}

export function jsonReply(value: unknown): ProviderReply {
  return { contentType: 'application/json', body: JSON.stringify(value) };
}

/** The answer to a webhook whose real work is done by call-control commands (Telnyx, ARI). */
export const ACKNOWLEDGED: ProviderReply = jsonReply({ status: 'received' });

/**
 * TwiML (and Cloudonix cXML) that connects the call to the media WebSocket. `<Connect><Stream>`
 * blocks until the socket closes; the `<Hangup/>` after it then ends the call.
 */
export function connectStreamDocument(streamUrl: string, parameters: Record<string, string> = {}): string {
  const params = Object.entries(parameters)
    .map(([name, value]) => `<Parameter name="${escapeXml(name)}" value="${escapeXml(value)}"/>`)
    .join('');
  const stream = params
    ? `<Stream url="${escapeXml(streamUrl)}">${params}</Stream>`
    : `<Stream url="${escapeXml(streamUrl)}"/>`;
  return `<Response><Connect>${stream}</Connect><Hangup/></Response>`;
}

/** The webhook's fields: the query of a GET, else the form or JSON body (by content type). */
export function webhookFields(request: WebhookRequest, provider: string): Record<string, unknown> {
  if (request.method.toUpperCase() === 'GET') {
    return Object.fromEntries(new URLSearchParams(request.url.split('#')[0]?.split('?')[1] ?? '').entries());
  }
  if ((request.headers['content-type'] ?? '').includes('application/json')) {
    return jsonObjectBody(request.rawBody, provider);
  }
  return formFields(request.rawBody);
}

/** A required, non-empty text field of an inbound webhook. */
export function requiredField(fields: Record<string, unknown>, name: string, provider: string): string {
  const value = fields[name];
  if (typeof value === 'string' && value.trim()) return value.trim();
  if (typeof value === 'number') return String(value);
  throw new ProviderError(`${provider} inbound webhook has no ${name}`);
}

export function optionalField(fields: Record<string, unknown>, name: string): string | null {
  const value = fields[name];
  if (typeof value === 'string' && value.trim()) return value.trim();
  return typeof value === 'number' ? String(value) : null;
}

/** Where a run's transfer events go: `${PUBLIC_BASE_URL}/api/v1/telephony/{provider}/transfer/{runId}`. */
export const transferCallbackUrl = (publicBaseUrl: string, provider: string, runId: number): string =>
  `${publicBaseUrl.replace(/\/+$/, '')}/api/v1/telephony/${provider}/transfer/${runId}`;

/** The audio a caller hears while a transfer's destination rings (public: providers fetch it). */
export const holdAudioUrl = (publicBaseUrl: string, format: 'wav' | 'mp3' = 'wav'): string =>
  `${publicBaseUrl.replace(/\/+$/, '')}/api/v1/telephony/hold-audio.${format}`;

/**
 * The provider-facing URLs of a run's call, inbound or outbound (`callUrls` of the call activities);
 * the media URL carries a short-lived token bound to the provider and the run. `answerUrl` is where
 * an answered outbound call fetches its markup.
 */

export function answerUrls(
  publicBaseUrl: string,
  provider: string,
  runId: number,
  secrets: Pick<Secrets, 'deriveKey'>,
) {
  const base = `${publicBaseUrl.replace(/\/+$/, '')}/api/v1/telephony/${provider}`;
  return {
    statusCallbackUrl: `${base}/status/${runId}`,
    answerUrl: `${base}/answer/${runId}`,
    mediaStreamUrl: mediaStreamUrl(publicBaseUrl, mediaTokenKey(secrets), { provider, runId }),
  };
}
