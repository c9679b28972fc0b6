import { z } from 'zod';
import { unlessNotFound } from '../../http';
import { ProviderError, type StartTransferRequest, type TransferEvent } from '../../provider';
import { isSipAddress, timedTransferId, transferCallbackFor } from '../../transfer-callback';
import { withoutPlus, type VonageClient } from './client';
import { mediaConnectAction } from './inbound';
import { LEG_STATUSES, StillRinging } from './transfer-legs';

/*
 * A warm transfer's id is `{conversation}.{run id}.{media URL, base64url}.{destination leg uuid}`:
 * the named conversation is the timed transfer id (`tr{hex}.{seconds}`), the run and its media URL
 * are where `release` streams the caller back to, and the leg is what `status` and `cancel` look at.
 * The leg's event URL carries the id without the leg, which its events add (`uuid`).
 */
const CALLBACK_ID = /^tr[0-9a-f]{24}\.\d+\.\d+\.[A-Za-z0-9_-]+$/;
const TRANSFER_ID = /^(tr[0-9a-f]{24}\.\d+)\.(\d+)\.([A-Za-z0-9_-]+)\.([0-9A-Za-z-]+)$/;

/** A warm transfer's callback id (in its event URL), as opposed to a blind one's. */
export const isWarmCallbackId = (id: string): boolean => CALLBACK_ID.test(id);
export const isWarmTransferId = (id: string): boolean => TRANSFER_ID.test(id);
/** The id of the warm transfer whose leg `legUuid` reported to the event URL naming `callbackId`. */
export function warmTransferIdOf(callbackId: string, legUuid: string | undefined): string {
  if (!legUuid) throw new ProviderError('Vonage transfer event names no call (uuid)');
  return `${callbackId}.${legUuid}`;
}

function partsOf(transferId: string) {
  const match = TRANSFER_ID.exec(transferId);
  if (!match) throw new ProviderError(`Vonage knows no transfer ${transferId}`, 404);
  const [, conversation = '', runId = '', mediaStreamUrl = '', legUuid = ''] = match;
  return {
    conversation,
    runId: Number(runId),
    mediaStreamUrl: Buffer.from(mediaStreamUrl, 'base64url').toString('utf8'),
    legUuid,
  };
}

const CreatedCall = z.object({ uuid: z.string().min(1) });
const CallResource = z.object({ uuid: z.string().min(1), status: z.string() });
/** Statuses of a call that is over: nothing moves it any more. */
const CallOver = new Set(['completed', 'busy', 'cancelled', 'failed', 'rejected', 'timeout', 'unanswered']);

/**
 * Warm transfer by a named conversation. The live call is transferred (`PUT /v1/calls/{uuid}`) to
 * an NCCO that waits in the conversation, the hold audio as its music on hold, so the agent's media
 * stream ends; the destination is called (`POST /v1/calls`) with an NCCO that speaks the summary to
 * the person (`talk`) and then joins the conversation, which starts it. The leg's events report the
 * transfer. A waiting caller leaves the conversation only when told to: `release` transfers them
 * back to the media stream once the transfer ended without a join; when the person hangs up after
 * the join, the conversation ends (their `endOnExit`) and so the caller's call, whose NCCO is done.
 */
export function vonageWarmTransfer(client: VonageClient, now: () => Date) {
  const callPath = (uuid: string) => `/v1/calls/${encodeURIComponent(uuid)}`;
  const call = async (uuid: string) => {
    const body = await unlessNotFound(client.voiceRequest({ method: 'GET', path: callPath(uuid) }));
    if (body === null) return null;
    const parsed = CallResource.safeParse(body);
    if (!parsed.success) throw new ProviderError('Vonage answered the call lookup with an unexpected body');
    return parsed.data;
  };
  const hangupLeg = (legUuid: string) =>
    unlessNotFound(client.voiceRequest({ method: 'PUT', path: callPath(legUuid), json: { action: 'hangup' } }));
  /** The caller, while still on the call, back to the agent: the NCCO that streams it to the media endpoint. */
  const returnCaller = async (providerCallId: string, mediaStreamUrl: string, runId: number) => {
    const current = await call(providerCallId);
    if (!current || CallOver.has(current.status)) return;
    await unlessNotFound(
      client.voiceRequest({
        method: 'PUT',
        path: callPath(providerCallId),
        json: {
          action: 'transfer',
          destination: { type: 'ncco', ncco: [mediaConnectAction(mediaStreamUrl, runId)] },
        },
      }),
    );
  };

  return {
    async start(request: StartTransferRequest): Promise<{ transferId: string }> {
      if (!request.from) throw new ProviderError('Vonage needs a caller id (from number) to call the destination');
      const conversation = timedTransferId(request.idempotencyKey, now());
      const media = Buffer.from(request.mediaStreamUrl, 'utf8').toString('base64url');
      const callbackId = `${conversation}.${request.runId}.${media}`;
      await client.voiceRequest({
        method: 'PUT',
        path: callPath(request.providerCallId),
        json: {
          action: 'transfer',
          destination: { type: 'ncco', ncco: waitNcco(conversation, request.holdAudioMp3Url) },
        },
      });
      try {
        const body = await client.voiceRequest({
          method: 'POST',
          path: '/v1/calls',
          json: {
            to: [
              isSipAddress(request.destination)
                ? { type: 'sip', uri: request.destination }
                : { type: 'phone', number: withoutPlus(request.destination) },
            ],
            from: { type: 'phone', number: withoutPlus(request.from) },
            ncco: joinNcco(conversation, request.announcement),
            ringing_timer: request.ringTimeoutSeconds,
            event_url: [transferCallbackFor(request.transferCallbackUrl, callbackId)],
            event_method: 'POST',
          },
        });
        const created = CreatedCall.safeParse(body);
        if (!created.success) throw new ProviderError('Vonage answered the call request with an unexpected body');
        return { transferId: warmTransferIdOf(callbackId, created.data.uuid) };
      } catch (error) {
        // The caller already waits in the conversation: nobody will join it.
        await returnCaller(request.providerCallId, request.mediaStreamUrl, request.runId).catch(() => undefined);
        throw error;
      }
    },

    /** Hangs the destination leg up while it rings; the caller keeps waiting until released. */
    async cancel(transferId: string): Promise<void> {
      const { legUuid } = partsOf(transferId);
      const current = await call(legUuid);
      if (current && StillRinging.has(current.status)) await hangupLeg(legUuid);
    },

    async status(transferId: string): Promise<TransferEvent | null> {
      const current = await call(partsOf(transferId).legUuid);
      const status = current ? LEG_STATUSES[current.status] : undefined;
      if (!current || !status) return null;
      return { status, transferId, providerCallId: current.uuid, raw: current };
    },

    /**
     * The transfer ended without a join: a leg still ringing is hung up and the caller, if still on
     * the call, goes back to the agent. A leg in progress has the person in the conversation: left as is.
     */
    async release(providerCallId: string, transferId: string): Promise<void> {
      const { legUuid, mediaStreamUrl, runId } = partsOf(transferId);
      const current = await call(legUuid);
      if (current?.status === 'answered') return;
      if (current && StillRinging.has(current.status)) await hangupLeg(legUuid);
      await returnCaller(providerCallId, mediaStreamUrl, runId);
    },
  };
}

/**
 * The caller's side: wait in the conversation (not starting it) to the hold audio; the
 * conversation ending ends the NCCO, and so the call.
 */
export function waitNcco(conversation: string, holdAudioUrl: string): Record<string, unknown>[] {
  return [
    {
      action: 'conversation',
      name: conversation,
      musicOnHoldUrl: [holdAudioUrl],
      startOnEnter: false,
      endOnExit: true,
    },
  ];
}

/** The person's side: hear the summary, then join the conversation, which starts it. */
export function joinNcco(conversation: string, announcement: string | null): Record<string, unknown>[] {
  const text = announcement?.trim();
  return [
    ...(text ? [{ action: 'talk', text }] : []),
    { action: 'conversation', name: conversation, startOnEnter: true, endOnExit: true },
  ];
}
