import { z } from 'zod';
import { readBody, unlessNotFound } from '../../http';
import {
  ProviderError,
  type StartTransferRequest,
  type TelephonyTransfer,
  type TransferEvent,
  type WebhookRequest,
} from '../../provider';
import { timedTransferId, transferCallbackFor, transferIdOfCallback, transferStartOf } from '../../transfer-callback';
import { formFields } from '../../webhook-signatures';
import { LABEL, LEG_STATUSES, StillRinging, type TwilioCalls } from './transfer-legs';
import { isWarmCallbackId, isWarmTransferId, twilioWarmTransfer, warmTransferIdOf } from './warm-transfer';
import { dialDocument } from '../../twiml-dial';

const ChildCalls = z.object({
  calls: z.array(z.object({ sid: z.string(), to: z.string().nullish(), status: z.string(), date_created: z.string() })),
});
type ChildCall = z.output<typeof ChildCalls>['calls'][number];

/** Twilio's clock and ours may differ by a little: legs created this long before the start still count. */
const CLOCK_SLACK_MS = 2_000;

/**
 * Blind transfers by updating the live call with TwiML `<Dial>`: the caller leaves the media stream
 * and hears the destination ring; the dialed leg's status callbacks name the transfer in their URL.
 * When the dial ends without a join (busy, no answer, failed, canceled), its `action` is the run's
 * answer URL, whose stream markup hands the caller back to the agent.
 *
 * Warm transfers by a conference (see `warm-transfer.ts`): the caller waits in it to hold audio
 * while the destination is called; the person hears the summary, then joins it.
 */
export function twilioTransfer(twilio: TwilioCalls): TelephonyTransfer {
  const warm = twilioWarmTransfer(twilio);
  /** The leg the transfer dialed: the call's newest child to the destination created since the start. */
  const dialedLeg = async (providerCallId: string, transferId: string): Promise<ChildCall | null> => {
    const startedAt = transferStartOf(transferId);
    if (!startedAt) throw new ProviderError(`Twilio knows no transfer ${transferId}`, 404);
    const query = new URLSearchParams({ ParentCallSid: providerCallId, PageSize: '20' });
    const response = await unlessNotFound(
      twilio.call({ method: 'GET', path: `${twilio.account}/Calls.json?${query.toString()}` }),
    );
    if (!response) return null;
    const since = startedAt.getTime() - CLOCK_SLACK_MS;
    const legs = readBody(LABEL, ChildCalls, response.body).calls.filter(
      (leg) => Date.parse(leg.date_created) >= since,
    );
    legs.sort((a, b) => Date.parse(b.date_created) - Date.parse(a.date_created));
    return legs[0] ?? null;
  };

  return {
    async start(request: StartTransferRequest) {
      if (request.mode === 'warm') return warm.start(request);
      const transferId = timedTransferId(request.idempotencyKey, twilio.now());
      await twilio.call({
        method: 'POST',
        path: twilio.callPath(request.providerCallId),
        form: {
          Twiml: dialDocument(request, {
            actionUrl: request.answerUrl,
            statusCallbackUrl: transferCallbackFor(request.transferCallbackUrl, transferId),
          }),
        },
      });
      return { transferId };
    },

    async cancel(providerCallId: string, transferId: string) {
      if (isWarmTransferId(transferId)) return warm.cancel(transferId);
      const leg = await dialedLeg(providerCallId, transferId);
      if (!leg || !StillRinging.has(leg.status)) return;
      // A leg answered meanwhile refuses `canceled` (Twilio answers 400): the join stands.
      await unlessNotFound(
        twilio.call({ method: 'POST', path: twilio.callPath(leg.sid), form: { Status: 'canceled' } }),
      ).catch((error: unknown) => {
        if (!(error instanceof ProviderError && error.status === 400)) throw error;
      });
    },

    async status(providerCallId: string, transferId: string): Promise<TransferEvent | null> {
      if (isWarmTransferId(transferId)) return warm.status(transferId);
      const leg = await dialedLeg(providerCallId, transferId);
      const status = leg ? LEG_STATUSES[leg.status] : undefined;
      if (!leg || !status) return null;
      return { status, transferId, providerCallId: leg.sid, raw: leg };
    },

    /** The dial's action brings a blind transfer's caller back; a warm one's waits in its conference. */
    async release(providerCallId: string, transferId: string) {
      if (isWarmTransferId(transferId)) await warm.release(providerCallId, transferId);
    },

    parseWebhook(request: WebhookRequest): TransferEvent {
      const named = transferIdOfCallback(request, LABEL);
      const fields = formFields(request.rawBody);
      const status = LEG_STATUSES[fields.CallStatus ?? ''];
      if (!status) throw new ProviderError(`Twilio sent an unknown CallStatus: ${fields.CallStatus ?? '(none)'}`);
      const transferId = isWarmCallbackId(named) ? warmTransferIdOf(named, fields.CallSid) : named;
      return { status, transferId, providerCallId: fields.CallSid, raw: fields };
    },
  };
}
