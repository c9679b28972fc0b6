import { z } from 'zod';
import { callProvider, type ProviderRequest } from '../../http';
import { ProviderError, type OriginateRequest, type ProviderContext, type StatusEvent } from '../../provider';
import type { TelnyxConfig } from './config';

const TELNYX_API = 'https://api.telnyx.com';

const dialResponseSchema = z.object({ data: z.object({ call_control_id: z.string() }) });
const callResponseSchema = z.object({
  data: z.object({ call_control_id: z.string(), is_alive: z.boolean(), call_duration: z.number().optional() }),
});
const applicationResponseSchema = z.object({ data: z.object({ application_name: z.string() }) });

/** Telnyx Call Control v2 over plain fetch (Bearer API key). */
export class TelnyxClient {
  constructor(
    private readonly config: TelnyxConfig,
    private readonly context: ProviderContext,
  ) {}

  async dial(call: OriginateRequest): Promise<string> {
    const connectionId = this.requireConnectionId();
    if (!call.from) throw new ProviderError('Telnyx needs a caller id to place a call');
    const body = await this.request({
      method: 'POST',
      path: '/v2/calls',
      json: {
        connection_id: connectionId,
        to: call.to,
        from: call.from,
        webhook_url: call.statusCallbackUrl,
        webhook_url_method: 'POST',
        // Telnyx streams the call straight to our media socket; there is no answer-URL round trip.
        stream_url: call.mediaStreamUrl,
        stream_track: 'inbound_track',
        stream_bidirectional_mode: 'rtp',
        stream_bidirectional_codec: 'PCMU',
        command_id: call.idempotencyKey,
      },
    });
    return parseAnswer(dialResponseSchema, body, 'dial').data.call_control_id;
  }

  /** The call resource has no state field: a live call reads as initiated, an ended one as completed. */
  async callStatus(callControlId: string): Promise<StatusEvent | null> {
    let body: unknown;
    try {
      body = await this.request({ method: 'GET', path: `/v2/calls/${encodeURIComponent(callControlId)}` });
    } catch (error) {
      if (error instanceof ProviderError && error.status === 404) return null;
      throw error;
    }
    const { data } = parseAnswer(callResponseSchema, body, 'call lookup');
    const raw = body as Record<string, unknown>;
    if (data.is_alive) return { status: 'initiated', providerCallId: data.call_control_id, raw };
    return { status: 'completed', providerCallId: data.call_control_id, durationSeconds: data.call_duration, raw };
  }

  /** A call Telnyx no longer knows has already ended, which is what a hang-up wants. */
  async hangup(callControlId: string): Promise<void> {
    try {
      await this.request({
        method: 'POST',
        path: `/v2/calls/${encodeURIComponent(callControlId)}/actions/hangup`,
        json: {},
      });
    } catch (error) {
      if (error instanceof ProviderError && error.status === 404) return;
      throw error;
    }
  }

  /** PATCH needs the application's name alongside the webhook URL, so read it first. */
  async setApplicationWebhook(url: string): Promise<void> {
    const path = `/v2/call_control_applications/${encodeURIComponent(this.requireConnectionId())}`;
    const body = await this.request({ method: 'GET', path });
    const { application_name } = parseAnswer(applicationResponseSchema, body, 'application lookup').data;
    await this.request({ method: 'PATCH', path, json: { application_name, webhook_event_url: url } });
  }

  private requireConnectionId(): string {
    if (!this.config.connection_id) throw new ProviderError('Telnyx connection_id (Call Control App) is not set');
    return this.config.connection_id;
  }

  private async request(request: ProviderRequest): Promise<unknown> {
    const headers = { authorization: `Bearer ${this.config.api_key}` };
    return (await callProvider('Telnyx', TELNYX_API, this.context, { ...request, headers })).body;
  }
}

function parseAnswer<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ProviderError(`Telnyx answered the ${what} with an unexpected body`);
  return parsed.data;
}
