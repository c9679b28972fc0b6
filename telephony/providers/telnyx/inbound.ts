import { z } from 'zod';
import { callProvider } from '../../http';
import { ACKNOWLEDGED } from '../../inbound';
import type { InboundWebhooks, ProviderContext, TelephonyProvider } from '../../provider';
import { jsonObjectBody } from '../../status-fields';
import type { TelnyxConfig } from './config';

const TELNYX_API = 'https://api.telnyx.com';

const initiatedSchema = z.object({
  data: z.object({
    event_type: z.string(),
    payload: z
      .object({
        call_control_id: z.string().optional(),
        direction: z.string().optional(),
        from: z.string().optional(),
        to: z.string().optional(),
        connection_id: z.string().optional(),
        shaken_stir_attestation: z.string().optional(),
        shaken_stir_validated: z.boolean().optional(),
      })
      .default({}),
  }),
});

/**
 * The Call Control App's webhook receives every event of an inbound call; only `call.initiated`
 * with `direction: incoming` announces a new one. The answer command moves the call's later events
 * to the run's status URL.
 */
export const telnyxInbound: InboundWebhooks = {
  parse(request) {
    const raw = jsonObjectBody(request.rawBody, 'Telnyx');
    const parsed = initiatedSchema.safeParse(raw);
    if (!parsed.success) return null;
    const { event_type, payload } = parsed.data.data;
    if (event_type !== 'call.initiated' || payload.direction !== 'incoming') return null;
    if (!payload.call_control_id || !payload.to) return null;
    return {
      calledNumber: payload.to,
      callerNumber: payload.from ?? null,
      providerCallId: payload.call_control_id,
      accountId: payload.connection_id,
      callerIdVerified: payload.shaken_stir_attestation === 'A' && payload.shaken_stir_validated === true,
      raw,
    };
  },
  // Refusing takes an authenticated command; without a configuration the call is left to time out.
  refuseUnknown: () => ACKNOWLEDGED,
};

/**
 * Call-control commands: `answer` with the media stream (bidirectional RTP, PCMU) and the run's
 * status URL for the call's later events; `reject` with `CALL_REJECTED`.
 */
export function telnyxAnswering(
  config: TelnyxConfig,
  context: ProviderContext,
): Pick<TelephonyProvider, 'answerCall' | 'rejectCall'> {
  const command = (callControlId: string, action: string, json: Record<string, unknown>) =>
    callProvider('Telnyx', TELNYX_API, context, {
      method: 'POST',
      path: `/v2/calls/${encodeURIComponent(callControlId)}/actions/${action}`,
      headers: { authorization: `Bearer ${config.api_key}` },
      json,
    });
  return {
    async answerCall(target) {
      await command(target.providerCallId, 'answer', {
        stream_url: target.mediaStreamUrl,
        stream_track: 'inbound_track',
        stream_bidirectional_mode: 'rtp',
        stream_bidirectional_codec: 'PCMU',
        webhook_url: target.statusCallbackUrl,
        webhook_url_method: 'POST',
        client_state: Buffer.from(`run_id=${target.runId}`).toString('base64'),
        // A repeated webhook answers the same call once.
        command_id: `answer-${target.runId}`,
      });
      return ACKNOWLEDGED;
    },
    async rejectCall(callControlId) {
      await command(callControlId, 'reject', { cause: 'CALL_REJECTED' }).catch(() => undefined);
      return ACKNOWLEDGED;
    },
  };
}
