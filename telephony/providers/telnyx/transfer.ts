import { z } from 'zod';
import { callProvider, readBody, unlessNotFound, type ProviderRequest } from '../../http';
import {
  ProviderError,
  type ProviderContext,
  type StartTransferRequest,
  type TelephonyTransfer,
  type TransferEvent,
  type TransferStatus,
  type WebhookRequest,
} from '../../provider';
import { jsonObjectBody } from '../../status-fields';
import { transferIdOf } from '../../transfer-callback';
import type { TelnyxConfig } from './config';
import { isWarmTransferId, telnyxWarmTransfer, warmLegStateOf, warmTransferIdOf } from './warm-transfer';

const LABEL = 'Telnyx';
const TELNYX_API = 'https://api.telnyx.com';

/** How the transferred leg's `call.hangup` ended it, by `hangup_cause`. */
const HANGUP_CAUSES: Readonly<Record<string, TransferStatus>> = {
  // An answered leg is known from its `call.answered`/`call.bridged`, and the first outcome stands;
  // a normal hang-up without one is the leg the ring timeout's cancel hung up.
  normal_clearing: 'no-answer',
  user_busy: 'busy',
  timeout: 'no-answer',
  no_answer: 'no-answer',
  originator_cancel: 'canceled',
  call_rejected: 'failed',
  unallocated_number: 'failed',
  not_found: 'failed',
};

/** When the cause is `unspecified` (or new), the SIP code tells busy and unanswered legs apart. */
const SIP_CAUSES: Readonly<Record<string, TransferStatus>> = {
  '486': 'busy',
  '600': 'busy',
  '408': 'no-answer',
  '480': 'no-answer',
  '487': 'no-answer',
};

const LegEvent = z.object({
  data: z.object({
    event_type: z.string(),
    payload: z.object({
      call_control_id: z.string().optional(),
      client_state: z.string().nullish(),
      hangup_cause: z.string().optional(),
      sip_hangup_cause: z.string().optional(),
    }),
  }),
});

const ActiveCalls = z.object({
  data: z.array(z.object({ call_control_id: z.string(), client_state: z.string().nullish() })),
});
const CallResource = z.object({ data: z.object({ is_alive: z.boolean() }) });

/** The transfer id as the transferred leg's `client_state` (base64, as Telnyx carries it). */
const clientStateOf = (transferId: string) => Buffer.from(transferId).toString('base64');

/**
 * Blind transfers with Call Control's `transfer` command: Telnyx dials the destination, bridges
 * the caller with it when it answers, and sends the new leg's events (`call.initiated`,
 * `call.answered`, `call.bridged`, `call.hangup`) to the transfer callback, the transfer id in the
 * leg's `client_state`. A leg that does not connect leaves the caller's call, and its media
 * stream, as they were: the agent carries on.
 *
 * Warm transfers dial the destination and bridge it with the caller once the person heard the
 * announcement (see `warm-transfer.ts`).
 */
export function telnyxTransfer(config: TelnyxConfig, context: ProviderContext): TelephonyTransfer {
  const request = async (call: ProviderRequest) =>
    (
      await callProvider(LABEL, TELNYX_API, context, {
        ...call,
        headers: { authorization: `Bearer ${config.api_key}` },
      })
    ).body;
  const warm = telnyxWarmTransfer(request, config.connection_id);

  /** The transferred leg while it is up: the connection's active call carrying the transfer's state. */
  const activeLeg = async (transferId: string): Promise<string | null> => {
    if (!config.connection_id) return null;
    const body = await unlessNotFound(
      request({
        method: 'GET',
        path: `/v2/connections/${encodeURIComponent(config.connection_id)}/active_calls?page[size]=250`,
      }),
    );
    if (body === null) return null;
    const state = clientStateOf(transferId);
    return readBody(LABEL, ActiveCalls, body).data.find((call) => call.client_state === state)?.call_control_id ?? null;
  };

  return {
    async start(transfer: StartTransferRequest) {
      if (transfer.mode === 'warm') return warm.start(transfer);
      const transferId = transferIdOf(transfer.idempotencyKey);
      await request({
        method: 'POST',
        path: `/v2/calls/${encodeURIComponent(transfer.providerCallId)}/actions/transfer`,
        json: {
          to: transfer.destination,
          ...(transfer.from ? { from: transfer.from } : {}),
          timeout_secs: transfer.ringTimeoutSeconds,
          webhook_url: transfer.transferCallbackUrl,
          webhook_url_method: 'POST',
          target_leg_client_state: clientStateOf(transferId),
          // Telnyx ignores a repeated command of the call: a retried start dials once.
          command_id: `transfer-${transferId}`,
        },
      });
      return { transferId };
    },

    /**
     * Hangs up the transferred leg if it is still up; the caller stays with the agent. The workflow
     * cancels only a transfer it saw no answer of, so a leg answered at the last moment goes too,
     * rather than joining a caller the agent has taken back.
     */
    async cancel(providerCallId: string, transferId: string) {
      if (isWarmTransferId(transferId)) return warm.cancel(providerCallId, transferId);
      const leg = await activeLeg(transferId);
      if (!leg) return;
      await unlessNotFound(
        request({ method: 'POST', path: `/v2/calls/${encodeURIComponent(leg)}/actions/hangup`, json: {} }),
      );
    },

    /**
     * Telnyx has no look-up of a transferred leg's progress, only of whether a call is up: a caller
     * whose call ended has left the transfer (canceled); otherwise the events tell.
     */
    async status(providerCallId: string, transferId: string): Promise<TransferEvent | null> {
      if (isWarmTransferId(transferId)) return warm.status(providerCallId, transferId);
      const body = await unlessNotFound(
        request({ method: 'GET', path: `/v2/calls/${encodeURIComponent(providerCallId)}` }),
      );
      const alive = body === null ? false : readBody(LABEL, CallResource, body).data.is_alive;
      if (alive) return null;
      return { status: 'canceled', transferId, providerCallId, raw: body === null ? {} : { call: body } };
    },

    /** The blind transfer's leg bridges itself; a warm one's waits for its commands. */
    async release(providerCallId: string, transferId: string) {
      if (isWarmTransferId(transferId)) await warm.release(providerCallId, transferId);
    },

    advance: (event, providerCallId) => warm.advance(event, providerCallId),

    parseWebhook(webhook: WebhookRequest): TransferEvent {
      const raw = jsonObjectBody(webhook.rawBody, LABEL);
      const parsed = LegEvent.safeParse(raw);
      if (!parsed.success) throw new ProviderError('Telnyx webhook is not a call event');
      const { event_type, payload } = parsed.data.data;
      const warmState = warmLegStateOf(payload.client_state);
      if (warmState) {
        if (!payload.call_control_id) throw new ProviderError('Telnyx transfer event names no call (call_control_id)');
        const status = warmLegStatus(event_type, payload, warmState.step === 'joined');
        if (!status) throw new ProviderError(`Telnyx event "${event_type}" says nothing of the transfer`);
        const transferId = warmTransferIdOf(warmState, payload.call_control_id);
        return { status, transferId, providerCallId: payload.call_control_id, raw };
      }
      const transferId = payload.client_state ? Buffer.from(payload.client_state, 'base64').toString('utf8') : '';
      if (!transferId) throw new ProviderError('Telnyx transfer event names no transfer (client_state)');
      const status = legStatus(event_type, payload);
      if (!status) throw new ProviderError(`Telnyx event "${event_type}" says nothing of the transfer`);
      return { status, transferId, providerCallId: payload.call_control_id, raw };
    },
  };
}

function legStatus(
  eventType: string,
  payload: { hangup_cause?: string; sip_hangup_cause?: string },
): TransferStatus | undefined {
  switch (eventType) {
    case 'call.initiated':
      return 'ringing';
    case 'call.answered':
    case 'call.bridged':
      return 'answered';
    case 'call.hangup':
      return HANGUP_CAUSES[payload.hangup_cause ?? ''] ?? SIP_CAUSES[payload.sip_hangup_cause ?? ''] ?? 'failed';
    default:
      return undefined;
  }
}

/**
 * A warm transfer leg's event: answered and announced to, it is still ringing as far as the caller
 * is concerned, until `advance` joins it; a joined leg's hang-up ends a transfer that connected.
 */
function warmLegStatus(
  eventType: string,
  payload: { hangup_cause?: string; sip_hangup_cause?: string },
  joined: boolean,
): TransferStatus | undefined {
  switch (eventType) {
    case 'call.initiated':
    case 'call.answered':
    case 'call.speak.started':
    case 'call.speak.ended':
      return joined ? 'answered' : 'ringing';
    case 'call.bridged':
      return 'answered';
    case 'call.hangup':
      return joined ? 'answered' : legStatus(eventType, payload);
    default:
      return undefined;
  }
}
