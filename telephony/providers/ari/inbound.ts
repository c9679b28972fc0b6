import { z } from 'zod';
import { basicAuth, callProvider } from '../../http';
import { ACKNOWLEDGED } from '../../inbound';
import { ProviderError, type InboundWebhooks, type ProviderContext, type TelephonyProvider } from '../../provider';
import type { AriConfig } from './config';
import { ariOrigin, guardedAriContext } from './endpoint';

const stasisStartSchema = z.object({
  type: z.literal('StasisStart'),
  args: z.array(z.string()).default([]),
  channel: z.object({
    id: z.string().min(1),
    caller: z.object({ number: z.string().optional() }).optional(),
    dialplan: z.object({ exten: z.string().optional() }).optional(),
  }),
});

/**
 * Asterisk has no inbound webhook: an inbound call is a `StasisStart` on the events WebSocket of a
 * channel the dialplan sent into our Stasis app. Our own originated channels carry `run_id=<id>` in
 * their args (see `AriClient.originate`) and are not new calls. The called number is the dialplan
 * extension, the caller the channel's caller id. Takes the event as JSON text in `rawBody`.
 */
export const ariInbound: InboundWebhooks = {
  parse(request) {
    let raw: unknown;
    try {
      raw = JSON.parse(request.rawBody);
    } catch {
      throw new ProviderError('ARI event is not JSON');
    }
    const parsed = stasisStartSchema.safeParse(raw);
    if (!parsed.success) return null;
    const { args, channel } = parsed.data;
    if (args.some((arg) => arg.startsWith('run_id='))) return null;
    const exten = channel.dialplan?.exten;
    if (!exten) throw new ProviderError('ARI StasisStart names no dialplan extension');
    return {
      calledNumber: exten,
      callerNumber: channel.caller?.number || null,
      // What the PBX's trunk did with STIR/SHAKEN does not reach ARI.
      callerIdVerified: false,
      providerCallId: channel.id,
      raw: raw as Record<string, unknown>,
    };
  },
  // Asterisk calls nothing over HTTP; an unknown extension is refused by `rejectCall` on its configuration.
  refuseUnknown: () => ACKNOWLEDGED,
};

/**
 * Answers the channel (it is in our Stasis app, so ARI may); the worker's ARI listener then bridges
 * it to the media endpoint (media-bridge.ts). Refusing hangs the channel up as busy, the one refusal
 * reason every supported Asterisk accepts.
 */
export function ariAnswering(
  config: AriConfig,
  providerContext: ProviderContext,
): Pick<TelephonyProvider, 'answerCall' | 'rejectCall'> {
  const origin = ariOrigin(config, providerContext);
  const context = guardedAriContext(providerContext);
  const headers = { authorization: basicAuth(config.app_name, config.app_password) };
  return {
    async answerCall(target) {
      await callProvider('Asterisk', origin, context, {
        method: 'POST',
        path: `/ari/channels/${encodeURIComponent(target.providerCallId)}/answer`,
        headers,
      });
      return ACKNOWLEDGED;
    },
    async rejectCall(channelId) {
      await callProvider('Asterisk', origin, context, {
        method: 'DELETE',
        path: `/ari/channels/${encodeURIComponent(channelId)}?reason=busy`,
        headers,
      }).catch(() => undefined);
      return ACKNOWLEDGED;
    },
  };
}
