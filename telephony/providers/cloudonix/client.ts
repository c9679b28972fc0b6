import { z } from 'zod';
import { callProvider, type ProviderRequest } from '../../http';
import { ProviderError, type OriginateRequest, type ProviderContext, type StatusEvent } from '../../provider';
import { cloudonixDomain, type CloudonixConfig } from './config';

const CLOUDONIX_API = 'https://api.cloudonix.io';

const dialResponseSchema = z.object({ token: z.string() });
/** Times come as epoch milliseconds (`call*Time`) or ISO text (`*Time`), depending on the API version. */
const sessionSchema = z.object({
  token: z.string(),
  callAnswerTime: z.number().nullish(),
  callEndTime: z.number().nullish(),
  answerTime: z.string().nullish(),
  endTime: z.string().nullish(),
});

/** Cloudonix calls and sessions API, authenticated with the domain API key. */
export class CloudonixClient {
  private readonly domainPath: string;

  constructor(
    private readonly config: CloudonixConfig,
    private readonly context: ProviderContext,
  ) {
    this.domainPath = encodeURIComponent(cloudonixDomain(config));
  }

  /**
   * Cloudonix takes no idempotency key: the call workflow asks for the call's status before dialling again.
   * No session `callback` is set, since it fires ten or more times a call; the outcome comes from the CDR.
   */
  async dial(call: OriginateRequest): Promise<string> {
    if (!call.from) throw new ProviderError('Cloudonix needs a caller id to place a call');
    const body = await this.request({
      method: 'POST',
      path: `/calls/${this.domainPath}/application`,
      json: { destination: call.to, 'caller-id': call.from, cxml: streamDocument(call.mediaStreamUrl) },
    });
    const parsed = dialResponseSchema.safeParse(body);
    if (!parsed.success) throw new ProviderError('Cloudonix answered the call request with an unexpected body');
    return parsed.data.token;
  }

  /** The session model has no disposition: it tells live, answered and ended calls apart, not why one ended. */
  async sessionStatus(token: string): Promise<StatusEvent | null> {
    let body: unknown;
    try {
      body = await this.request({ method: 'GET', path: this.sessionPath(token) });
    } catch (error) {
      if (error instanceof ProviderError && error.status === 404) return null;
      throw error;
    }
    const parsed = sessionSchema.safeParse(body);
    if (!parsed.success) throw new ProviderError('Cloudonix answered the session lookup with an unexpected body');
    const session = parsed.data;
    const raw = body as Record<string, unknown>;
    const answeredAt = epochMs(session.callAnswerTime, session.answerTime);
    const endedAt = epochMs(session.callEndTime, session.endTime);
    const event = { providerCallId: session.token, raw };
    if (endedAt === undefined) return { ...event, status: answeredAt === undefined ? 'initiated' : 'answered' };
    if (answeredAt === undefined) return { ...event, status: 'failed', durationSeconds: 0 };
    return { ...event, status: 'completed', durationSeconds: Math.max(0, Math.round((endedAt - answeredAt) / 1000)) };
  }

  /** A session Cloudonix no longer knows has already ended, which is what a hang-up wants. */
  async hangup(token: string): Promise<void> {
    try {
      await this.request({ method: 'DELETE', path: this.sessionPath(token) });
    } catch (error) {
      if (error instanceof ProviderError && error.status === 404) return;
      throw error;
    }
  }

  /** Runs `cxml` on a live session instead of its voice application (a transfer's `<Dial>`). */
  async switchApplication(token: string, cxml: string): Promise<void> {
    await this.request({ method: 'POST', path: `${this.sessionPath(token)}/application`, json: { cxml } });
  }

  async setApplicationUrl(url: string): Promise<void> {
    if (!this.config.application_name) throw new ProviderError('Cloudonix application_name is not set');
    await this.request({
      method: 'PATCH',
      path: `/customers/self/domains/${this.domainPath}/applications/${encodeURIComponent(this.config.application_name)}`,
      json: { url, method: 'POST' },
    });
  }

  private sessionPath(token: string): string {
    return `/calls/${this.domainPath}/sessions/${encodeURIComponent(token)}`;
  }

  private async request(request: ProviderRequest): Promise<unknown> {
    const headers = { authorization: `Bearer ${this.config.bearer_token}` };
    return (await callProvider('Cloudonix', CLOUDONIX_API, this.context, { ...request, headers })).body;
  }
}

/** CXML (TwiML-compatible) that connects the answered call to our media WebSocket. */
function streamDocument(mediaStreamUrl: string): string {
  return `<Response><Connect><Stream url="${escapeXml(mediaStreamUrl)}"/></Connect><Hangup/></Response>`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function epochMs(epoch: number | null | undefined, iso: string | null | undefined): number | undefined {
  if (typeof epoch === 'number' && epoch > 0) return epoch;
  const parsed = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(parsed) ? undefined : parsed;
}
