import { z } from 'zod';
import { unlessNotFound } from '../../http';
import {
  ProviderError,
  type StartTransferRequest,
  type TelephonyTransfer,
  type TransferEvent,
  type WebhookRequest,
} from '../../provider';
import { jsonObjectBody } from '../../status-fields';
import {
  isSipAddress,
  timedTransferId,
  transferCallbackFor,
  transferIdOfCallback,
  transferStartOf,
} from '../../transfer-callback';
import { withoutPlus, type VonageClient } from './client';
import { mediaConnectAction } from './inbound';
import { LABEL, LEG_STATUSES, StillRinging } from './transfer-legs';
import { isWarmCallbackId, isWarmTransferId, vonageWarmTransfer, warmTransferIdOf } from './warm-transfer';

const CallResource = z.object({ uuid: z.string(), conversation_uuid: z.string() });
const ConversationCalls = z.object({
  _embedded: z
    .object({
      calls: z.array(
        z.object({
          uuid: z.string(),
          status: z.string(),
          to: z.object({ type: z.string().optional() }).optional(),
          start_time: z.string().nullish(),
        }),
      ),
    })
    .optional(),
});
type ConversationCall = NonNullable<z.output<typeof ConversationCalls>['_embedded']>['calls'][number];
const LegEvent = z.object({ uuid: z.string().optional(), status: z.string() });

/** Vonage's clock and ours may differ by a little: legs started this long before the start still count. */
const CLOCK_SLACK_MS = 2_000;

/**
 * Blind transfers by giving the live call a new NCCO (`PUT /v1/calls/{uuid}`, action `transfer`):
 * a `connect` to the destination for the ring timeout, the hold audio as its ringback tone and its
 * leg's events at the transfer callback; then, reached only when that leg did not connect or has
 * hung up, a `connect` back to the media stream, which hands the caller back to the agent.
 *
 * Warm transfers by a named conversation (see `warm-transfer.ts`): the caller waits in it to the hold
 * audio while the destination is called; the person hears the summary, then joins it.
 */
export function vonageTransfer(client: VonageClient, now: () => Date): TelephonyTransfer {
  const warm = vonageWarmTransfer(client, now);
  /** The leg the transfer connected: the newest phone or SIP leg of the call's conversation since the start. */
  const connectedLeg = async (providerCallId: string, transferId: string): Promise<ConversationCall | null> => {
    const startedAt = transferStartOf(transferId);
    if (!startedAt) throw new ProviderError(`Vonage knows no transfer ${transferId}`, 404);
    const caller = await unlessNotFound(
      client.voiceRequest({ method: 'GET', path: `/v1/calls/${encodeURIComponent(providerCallId)}` }),
    );
    if (caller === null) return null;
    const parsed = CallResource.safeParse(caller);
    if (!parsed.success) throw new ProviderError('Vonage answered the call lookup with an unexpected body');
    const query = new URLSearchParams({
      conversation_uuid: parsed.data.conversation_uuid,
      date_start: new Date(startedAt.getTime() - CLOCK_SLACK_MS).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      order: 'desc',
    });
    const body = await client.voiceRequest({ method: 'GET', path: `/v1/calls?${query.toString()}` });
    const calls = ConversationCalls.safeParse(body);
    if (!calls.success) throw new ProviderError('Vonage answered the call listing with an unexpected body');
    // The conversation's other legs: the media stream's WebSocket legs are not the destination.
    return (
      calls.data._embedded?.calls.find((leg) => leg.uuid !== providerCallId && leg.to?.type !== 'websocket') ?? null
    );
  };

  return {
    async start(request: StartTransferRequest) {
      if (request.mode === 'warm') return warm.start(request);
      const transferId = timedTransferId(request.idempotencyKey, now());
      const destination = isSipAddress(request.destination)
        ? { type: 'sip', uri: request.destination }
        : { type: 'phone', number: withoutPlus(request.destination) };
      const ncco = [
        {
          action: 'connect',
          ...(request.from ? { from: withoutPlus(request.from) } : {}),
          timeout: request.ringTimeoutSeconds,
          ringbackTone: request.holdAudioMp3Url,
          eventUrl: [transferCallbackFor(request.transferCallbackUrl, transferId)],
          eventMethod: 'POST',
          endpoint: [destination],
        },
        mediaConnectAction(request.mediaStreamUrl, request.runId),
      ];
      await client.voiceRequest({
        method: 'PUT',
        path: `/v1/calls/${encodeURIComponent(request.providerCallId)}`,
        json: { action: 'transfer', destination: { type: 'ncco', ncco } },
      });
      return { transferId };
    },

    async cancel(providerCallId: string, transferId: string) {
      if (isWarmTransferId(transferId)) return warm.cancel(transferId);
      const leg = await connectedLeg(providerCallId, transferId);
      if (!leg || !StillRinging.has(leg.status)) return;
      await unlessNotFound(
        client.voiceRequest({
          method: 'PUT',
          path: `/v1/calls/${encodeURIComponent(leg.uuid)}`,
          json: { action: 'hangup' },
        }),
      );
    },

    async status(providerCallId: string, transferId: string): Promise<TransferEvent | null> {
      if (isWarmTransferId(transferId)) return warm.status(transferId);
      const leg = await connectedLeg(providerCallId, transferId);
      const status = leg ? LEG_STATUSES[leg.status] : undefined;
      if (!leg || !status) return null;
      return { status, transferId, providerCallId: leg.uuid, raw: leg };
    },

    /** The NCCO's second action brings a blind transfer's caller back; a warm one's waits in its conversation. */
    async release(providerCallId: string, transferId: string) {
      if (isWarmTransferId(transferId)) await warm.release(providerCallId, transferId);
    },

    parseWebhook(request: WebhookRequest): TransferEvent {
      const named = transferIdOfCallback(request, LABEL);
      const raw = jsonObjectBody(request.rawBody, LABEL);
      const parsed = LegEvent.safeParse(raw);
      if (!parsed.success) throw new ProviderError('Vonage transfer event carries no status');
      const status = LEG_STATUSES[parsed.data.status];
      if (!status) throw new ProviderError(`Vonage status "${parsed.data.status}" says nothing of the transfer`);
      const transferId = isWarmCallbackId(named) ? warmTransferIdOf(named, parsed.data.uuid) : named;
      return { status, transferId, providerCallId: parsed.data.uuid, raw };
    },
  };
}
