import { createHash } from 'node:crypto';
import { z } from 'zod';
import { basicAuth, callProvider, type ProviderRequest } from '../../http';
import { ProviderError, type OriginateRequest, type ProviderContext, type StatusEvent } from '../../provider';
import { DEFAULT_DIAL_STRING_TEMPLATE, type AriConfig } from './config';
import { ariOrigin, guardedAriContext } from './endpoint';
import { CHANNEL_STATE_STATUS } from './status';

/** Asterisk's default ring timeout for an originate, made explicit. */
const RING_TIMEOUT_SECONDS = 30;

const channelResponseSchema = z.object({ id: z.string(), state: z.string() });

/** The Asterisk REST Interface over plain fetch (Basic user:password); parameters travel in the query string. */
export class AriClient {
  private readonly origin: string;
  private readonly context: ProviderContext;

  constructor(
    private readonly config: AriConfig,
    context: ProviderContext,
  ) {
    this.origin = ariOrigin(config, context);
    this.context = guardedAriContext(context);
  }

  /**
   * The channel id is derived from the idempotency key, so a repeated originate names the same channel:
   * Asterisk refuses it with 409 while the first call lives, and the first call's id is returned.
   */
  async originate(call: OriginateRequest): Promise<string> {
    if (!this.config.stasis_app_name) throw new ProviderError('ARI stasis_app_name is not set');
    const channelId = channelIdFor(call.idempotencyKey);
    const query = new URLSearchParams({
      endpoint: dialString(call.to, this.config.dial_string_template),
      app: this.config.stasis_app_name,
      appArgs: `run_id=${call.runId}`,
      timeout: String(RING_TIMEOUT_SECONDS),
    });
    if (call.from) query.set('callerId', call.from);
    try {
      await this.request({ method: 'POST', path: `/ari/channels/${channelId}?${query.toString()}` });
    } catch (error) {
      if (error instanceof ProviderError && error.status === 409) return channelId;
      throw error;
    }
    return channelId;
  }

  /** Asterisk forgets a channel once it is destroyed, so an ended call reads as unknown (null). */
  async channelStatus(channelId: string): Promise<StatusEvent | null> {
    let body: unknown;
    try {
      body = await this.request({ method: 'GET', path: `/ari/channels/${encodeURIComponent(channelId)}` });
    } catch (error) {
      if (error instanceof ProviderError && error.status === 404) return null;
      throw error;
    }
    const parsed = channelResponseSchema.safeParse(body);
    if (!parsed.success) throw new ProviderError('Asterisk answered the channel lookup with an unexpected body');
    const status = CHANNEL_STATE_STATUS[parsed.data.state] ?? 'initiated';
    return { status, providerCallId: parsed.data.id, raw: body as Record<string, unknown> };
  }

  /** A channel Asterisk no longer knows has already hung up. */
  async hangup(channelId: string): Promise<void> {
    try {
      await this.request({ method: 'DELETE', path: `/ari/channels/${encodeURIComponent(channelId)}?reason=normal` });
    } catch (error) {
      if (error instanceof ProviderError && error.status === 404) return;
      throw error;
    }
  }

  /** One authenticated ARI request; the body Asterisk answered (null when empty). */
  async request(request: ProviderRequest): Promise<unknown> {
    const headers = { authorization: basicAuth(this.config.app_name, this.config.app_password) };
    return (await callProvider('Asterisk', this.origin, this.context, { ...request, headers })).body;
  }
}

/** `SIP/…` and `PJSIP/…` are already dial strings; anything else fills the template's `{number}`. */
export function dialString(to: string, template: string = DEFAULT_DIAL_STRING_TEMPLATE): string {
  if (/^(PJ)?SIP\//.test(to)) return to;
  return template.replaceAll('{number}', to);
}

/** Idempotency keys may hold characters a channel id cannot; a hash is short, safe and stable. */
export function channelIdFor(idempotencyKey: string): string {
  return `switchboard-${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 32)}`;
}
