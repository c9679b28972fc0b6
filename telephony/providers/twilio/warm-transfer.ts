import { z } from 'zod';
import { readBody, unlessNotFound } from '../../http';
import { escapeXml } from '../../inbound';
import { ProviderError, type StartTransferRequest, type TransferEvent } from '../../provider';
import { timedTransferId, transferCallbackFor } from '../../transfer-callback';
import { LABEL, LEG_STATUSES, StillRinging, type TwilioCalls } from './transfer-legs';

/*
 * A warm transfer's id is `{conference}.{answer URL, base64url}.{destination leg sid}`: the
 * conference is named by the timed transfer id (`tr{hex}.{seconds}`), the caller's answer URL is
 * where `release` sends the caller back, and the leg is what `status` and `cancel` look at. The
 * leg's status callback URL carries the id without the leg, which its events add (`CallSid`).
 */
const CALLBACK_ID = /^tr[0-9a-f]{24}\.\d+\.[A-Za-z0-9_-]+$/;
const TRANSFER_ID = /^(tr[0-9a-f]{24}\.\d+)\.([A-Za-z0-9_-]+)\.(CA[0-9a-zA-Z]+)$/;

/** A warm transfer's callback id (in its status callback URL), as opposed to a blind one's. */
export const isWarmCallbackId = (id: string): boolean => CALLBACK_ID.test(id);
export const isWarmTransferId = (id: string): boolean => TRANSFER_ID.test(id);
/** The id of the warm transfer whose leg `legSid` reported to the callback naming `callbackId`. */
export function warmTransferIdOf(callbackId: string, legSid: string | undefined): string {
  if (!legSid) throw new ProviderError('Twilio transfer webhook names no call (CallSid)');
  return `${callbackId}.${legSid}`;
}

function partsOf(transferId: string) {
  const match = TRANSFER_ID.exec(transferId);
  if (!match) throw new ProviderError(`Twilio knows no transfer ${transferId}`, 404);
  const [, conference = '', answerUrl = '', legSid = ''] = match;
  return { conference, answerUrl: Buffer.from(answerUrl, 'base64url').toString('utf8'), legSid };
}

const CallResource = z.object({ sid: z.string().min(1), status: z.string() });

/** Twilio refuses (400) to change a call that is no longer in the state the change needs: nothing to do. */
const unlessSettled = (error: unknown) => {
  if (!(error instanceof ProviderError && (error.status === 400 || error.status === 404))) throw error;
};

/**
 * Warm transfer by a named conference. The live call is updated to wait in the conference, its hold
 * music the hold audio, so the agent's media stream ends; the destination is called (Calls API)
 * with TwiML that speaks the summary to the person and then joins the conference, which starts it.
 * The leg's status callbacks report the transfer. A waiting caller leaves the conference only when
 * told to: `release` moves them to the run's answer URL (the stream back to the agent) once the
 * transfer ended without a join; when a joined call ends, the conference ends and so the call.
 */
export function twilioWarmTransfer(twilio: TwilioCalls) {
  const leg = async (legSid: string) => {
    const response = await unlessNotFound(twilio.call({ method: 'GET', path: twilio.callPath(legSid) }));
    return response ? readBody(LABEL, CallResource, response.body) : null;
  };
  const cancelLeg = (legSid: string) =>
    twilio
      .call({ method: 'POST', path: twilio.callPath(legSid), form: { Status: 'canceled' } })
      .then(() => undefined, unlessSettled);
  const returnCaller = (providerCallId: string, answerUrl: string) =>
    twilio
      .call({ method: 'POST', path: twilio.callPath(providerCallId), form: { Url: answerUrl, Method: 'POST' } })
      .then(() => undefined, unlessSettled);

  return {
    async start(request: StartTransferRequest): Promise<{ transferId: string }> {
      if (!request.from) throw new ProviderError('Twilio needs a caller id (from number) to call the destination');
      const conference = timedTransferId(request.idempotencyKey, twilio.now());
      const callbackId = `${conference}.${Buffer.from(request.answerUrl, 'utf8').toString('base64url')}`;
      await twilio.call({
        method: 'POST',
        path: twilio.callPath(request.providerCallId),
        form: { Twiml: waitDocument(conference, request.holdAudioUrl) },
      });
      try {
        const { body } = await twilio.call({
          method: 'POST',
          path: `${twilio.account}/Calls.json`,
          form: {
            To: request.destination,
            From: request.from,
            Twiml: joinDocument(conference, request.announcement),
            Timeout: String(request.ringTimeoutSeconds),
            StatusCallback: transferCallbackFor(request.transferCallbackUrl, callbackId),
            StatusCallbackMethod: 'POST',
            StatusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
          },
        });
        return { transferId: warmTransferIdOf(callbackId, readBody(LABEL, CallResource, body).sid) };
      } catch (error) {
        // The caller already waits in the conference: nobody will join it.
        await returnCaller(request.providerCallId, request.answerUrl).catch(() => undefined);
        throw error;
      }
    },

    /** Stops the destination leg while it rings; the caller keeps waiting until released. */
    async cancel(transferId: string): Promise<void> {
      const { legSid } = partsOf(transferId);
      const current = await leg(legSid);
      if (current && StillRinging.has(current.status)) await cancelLeg(legSid);
    },

    async status(transferId: string): Promise<TransferEvent | null> {
      const current = await leg(partsOf(transferId).legSid);
      const status = current ? LEG_STATUSES[current.status] : undefined;
      if (!current || !status) return null;
      return { status, transferId, providerCallId: current.sid, raw: current };
    },

    /**
     * The transfer ended without a join: a leg still ringing is stopped and the caller, if still
     * waiting, goes back to the agent. A leg in progress has the person in the conference: left as is.
     */
    async release(providerCallId: string, transferId: string): Promise<void> {
      const { answerUrl, legSid } = partsOf(transferId);
      const current = await leg(legSid);
      if (current?.status === 'in-progress') return;
      if (current && StillRinging.has(current.status)) await cancelLeg(legSid);
      await returnCaller(providerCallId, answerUrl);
    },
  };
}

/**
 * The caller's side: wait in the conference (not starting it) to the hold audio, a static WAV
 * fetched with GET; leaving ends it, and once it ends the call is over.
 */
export function waitDocument(conference: string, holdAudioUrl: string): string {
  const attributes = [
    `waitUrl="${escapeXml(holdAudioUrl)}"`,
    'waitMethod="GET"',
    'startConferenceOnEnter="false"',
    'endConferenceOnExit="true"',
    'beep="false"',
  ].join(' ');
  return `<Response><Dial><Conference ${attributes}>${conference}</Conference></Dial><Hangup/></Response>`;
}

/** The person's side: hear the summary, then join the conference, which starts it. */
export function joinDocument(conference: string, announcement: string | null): string {
  const say = announcement?.trim() ? `<Say>${escapeXml(announcement.trim())}</Say>` : '';
  const attributes = 'startConferenceOnEnter="true" endConferenceOnExit="true" beep="false"';
  return `<Response>${say}<Dial><Conference ${attributes}>${conference}</Conference></Dial></Response>`;
}
