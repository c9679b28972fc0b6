import { createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { z } from 'zod';
import { basicAuth, callProvider, type ProviderRequest } from '../../http';
import { ProviderError, type OriginateRequest, type ProviderContext, type StatusEvent } from '../../provider';
import type { VonageConfig } from './config';
import { vonageStatusEvent } from './status';

const VONAGE_API = 'https://api.nexmo.com';
const JWT_LIFETIME_SECONDS = 3600;

const createCallResponseSchema = z.object({ uuid: z.string() });
const applicationSchema = z.looseObject({
  capabilities: z
    .looseObject({ voice: z.looseObject({ webhooks: z.looseObject({}).optional() }).optional() })
    .optional(),
});

/** Vonage Voice API v1 (RS256 application JWT) and Application API v2 (Basic api_key:api_secret). */
export class VonageClient {
  private privateKey: KeyObject | undefined;

  constructor(
    private readonly config: VonageConfig,
    private readonly context: ProviderContext,
  ) {}

  /** Vonage takes no idempotency key: the call workflow asks for the call's status before dialling again. */
  async createCall(call: OriginateRequest): Promise<string> {
    if (!call.from) throw new ProviderError('Vonage needs a caller id to place a call');
    const body = await this.voiceRequest({
      method: 'POST',
      path: '/v1/calls',
      json: {
        to: [{ type: 'phone', number: withoutPlus(call.to) }],
        from: { type: 'phone', number: withoutPlus(call.from) },
        // The answer URL returns the NCCO that connects the call to our media WebSocket.
        answer_url: [call.answerUrl],
        answer_method: 'GET',
        event_url: [call.statusCallbackUrl],
        event_method: 'POST',
      },
    });
    const parsed = createCallResponseSchema.safeParse(body);
    if (!parsed.success) throw new ProviderError('Vonage answered the call request with an unexpected body');
    return parsed.data.uuid;
  }

  async callStatus(uuid: string): Promise<StatusEvent | null> {
    let body: unknown;
    try {
      body = await this.voiceRequest({ method: 'GET', path: `/v1/calls/${encodeURIComponent(uuid)}` });
    } catch (error) {
      if (error instanceof ProviderError && error.status === 404) return null;
      throw error;
    }
    if (typeof body !== 'object' || body === null) throw new ProviderError('Vonage answered the call lookup empty');
    return vonageStatusEvent(body as Record<string, unknown>);
  }

  /** A call Vonage no longer knows has already ended, which is what a hang-up wants. */
  async hangup(uuid: string): Promise<void> {
    try {
      await this.voiceRequest({
        method: 'PUT',
        path: `/v1/calls/${encodeURIComponent(uuid)}`,
        json: { action: 'hangup' },
      });
    } catch (error) {
      if (error instanceof ProviderError && error.status === 404) return;
      throw error;
    }
  }

  /** Points the application's answer and event webhooks at us and turns on signed callbacks (PUT replaces all). */
  async setInboundWebhooks(answerUrl: string, eventUrl: string): Promise<void> {
    const path = `/v2/applications/${encodeURIComponent(this.config.application_id)}`;
    const body = await this.applicationRequest({ method: 'GET', path });
    const parsed = applicationSchema.safeParse(body);
    if (!parsed.success) throw new ProviderError('Vonage answered the application lookup with an unexpected body');
    const application = parsed.data;
    const voice = application.capabilities?.voice ?? {};
    const updated = {
      ...application,
      capabilities: {
        ...application.capabilities,
        voice: {
          ...voice,
          webhooks: {
            ...voice.webhooks,
            answer_url: { address: answerUrl, http_method: 'POST' },
            event_url: { address: eventUrl, http_method: 'POST' },
          },
          signed_callbacks: true,
        },
      },
    };
    await this.applicationRequest({ method: 'PUT', path, json: updated });
  }

  /** A Voice API request under the application's JWT. */
  async voiceRequest(request: ProviderRequest): Promise<unknown> {
    const headers = { authorization: `Bearer ${await this.applicationJwt()}` };
    return (await callProvider('Vonage', VONAGE_API, this.context, { ...request, headers })).body;
  }

  private async applicationRequest(request: ProviderRequest): Promise<unknown> {
    const headers = { authorization: basicAuth(this.config.api_key, this.config.api_secret) };
    return (await callProvider('Vonage', VONAGE_API, this.context, { ...request, headers })).body;
  }

  private async applicationJwt(): Promise<string> {
    const issuedAt = Math.floor((this.context.now?.() ?? new Date()).getTime() / 1000);
    return new SignJWT({ application_id: this.config.application_id })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + JWT_LIFETIME_SECONDS)
      .setJti(randomUUID())
      .sign(this.signingKey());
  }

  /** Parsed lazily: a malformed key fails the request that needs it, not the adapter's construction. */
  private signingKey(): KeyObject {
    if (!this.privateKey) {
      try {
        this.privateKey = createPrivateKey(this.config.private_key);
      } catch {
        throw new ProviderError('Vonage private_key is not a valid PEM private key');
      }
    }
    return this.privateKey;
  }
}

/** Vonage wants numbers as digits only. */
export function withoutPlus(number: string): string {
  return number.replace(/^\+/, '');
}
