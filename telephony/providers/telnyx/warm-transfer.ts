import { z } from 'zod';
import { readBody, unlessNotFound, type ProviderRequest } from '../../http';
import { ProviderError, type StartTransferRequest, type TransferEvent } from '../../provider';
import { transferIdOf } from '../../transfer-callback';

const LABEL = 'Telnyx';

/**
 * How far a warm transfer's destination leg has come, kept in the leg's own `client_state` so any
 * process can carry the transfer on: dialed (ringing, or answered and not yet announced to),
 * answered (hearing the announcement), joined (bridged with the caller).
 */
const LegState = z.object({
  transfer: z.string().regex(/^tr[0-9a-f]{24}$/),
  step: z.enum(['dialed', 'answered', 'joined']),
  announcement: z.string().optional(),
});
type LegState = z.infer<typeof LegState>;

/** Telnyx's own limit on `client_state` is undocumented: the announcement it carries stays short. */
export const MAX_ANNOUNCEMENT_CHARS = 1_000;

/** A warm transfer's id is `{transfer}.{destination leg's call_control_id}`; a blind one's has no leg. */
const TRANSFER_ID = /^(tr[0-9a-f]{24})\.(.+)$/;
export const isWarmTransferId = (id: string): boolean => TRANSFER_ID.test(id);

function partsOf(transferId: string) {
  const match = TRANSFER_ID.exec(transferId);
  if (!match) throw new ProviderError(`Telnyx knows no transfer ${transferId}`, 404);
  const [, transfer = '', leg = ''] = match;
  return { transfer, leg };
}

const encodeState = (state: LegState) => Buffer.from(JSON.stringify(state), 'utf8').toString('base64');

/** A warm transfer leg's state from its base64 `client_state`; null for anything else (a blind leg's id). */
export function warmLegStateOf(clientState: string | null | undefined): LegState | null {
  if (!clientState) return null;
  const text = Buffer.from(clientState, 'base64').toString('utf8');
  if (!text.startsWith('{')) return null;
  try {
    const parsed = LegState.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The id of the warm transfer a leg event belongs to. */
export const warmTransferIdOf = (state: LegState, legControlId: string): string => `${state.transfer}.${legControlId}`;

/** An announcement cut to `MAX_ANNOUNCEMENT_CHARS`, at a word boundary when there is one. */
function boundedAnnouncement(announcement: string | null): string | undefined {
  const text = announcement?.trim();
  if (!text) return undefined;
  if (text.length <= MAX_ANNOUNCEMENT_CHARS) return text;
  const cut = text.slice(0, MAX_ANNOUNCEMENT_CHARS);
  const space = cut.lastIndexOf(' ');
  return (space > MAX_ANNOUNCEMENT_CHARS / 2 ? cut.slice(0, space) : cut).trim();
}

const Dialed = z.object({ data: z.object({ call_control_id: z.string().min(1) }) });
const CallResource = z.object({ data: z.object({ is_alive: z.boolean(), client_state: z.string().nullish() }) });

const WarmLegEvent = z.object({
  data: z.object({
    event_type: z.string(),
    payload: z.object({ call_control_id: z.string(), client_state: z.string().nullish() }),
  }),
});

/**
 * Warm transfer by dialing the destination and bridging it with the caller: the caller hears the
 * hold audio (played on their call, looped) while the destination rings, their media stream to the
 * agent still open. The destination leg's events come to the transfer callback, where `advance`
 * carries the transfer on: once the person answers, the announcement is spoken to them; once it
 * ended, their leg is bridged with the caller, the hold audio stops and so does the agent's stream.
 * A bridge hangs up either side when the other hangs up. `release` hangs up a leg that did not join
 * and stops the hold audio: the caller is back with the agent on the stream that never closed.
 */
export function telnyxWarmTransfer(request: (call: ProviderRequest) => Promise<unknown>, connectionId?: string) {
  const command = (callControlId: string, action: string, json: Record<string, unknown>) =>
    request({ method: 'POST', path: `/v2/calls/${encodeURIComponent(callControlId)}/actions/${action}`, json });
  /** A command on a call that ended (404) or is past it (422) changes nothing: false, not an error. */
  const unlessSettled = (sent: Promise<unknown>): Promise<boolean> =>
    sent.then(
      () => true,
      (error: unknown) => {
        if (error instanceof ProviderError && (error.status === 404 || error.status === 422)) return false;
        throw error;
      },
    );
  const call = async (callControlId: string) => {
    const body = await unlessNotFound(
      request({ method: 'GET', path: `/v2/calls/${encodeURIComponent(callControlId)}` }),
    );
    return body === null ? null : readBody(LABEL, CallResource, body).data;
  };
  const stopHoldAudio = (caller: string) => unlessSettled(command(caller, 'playback_stop', { stop: 'all' }));

  /** Bridges the person's leg with the caller (marking the leg joined), then stops the hold audio and the agent's stream. */
  const join = async (transfer: string, leg: string, caller: string): Promise<boolean> => {
    const bridged = await unlessSettled(
      command(leg, 'bridge', {
        call_control_id: caller,
        client_state: encodeState({ transfer, step: 'joined' }),
        // The leg's event and the ring timeout's cancel may both join: Telnyx runs it once.
        command_id: `join-${transfer}`,
      }),
    );
    if (!bridged) return false;
    await stopHoldAudio(caller);
    await unlessSettled(command(caller, 'streaming_stop', {}));
    return true;
  };

  return {
    async start(transfer: StartTransferRequest): Promise<{ transferId: string }> {
      if (!connectionId) throw new ProviderError('Telnyx connection_id (Call Control App) is not set');
      if (!transfer.from) throw new ProviderError('Telnyx needs a caller id (from number) to call the destination');
      const name = transferIdOf(transfer.idempotencyKey);
      const announcement = boundedAnnouncement(transfer.announcement);
      await command(transfer.providerCallId, 'playback_start', {
        audio_url: transfer.holdAudioUrl,
        loop: 'infinity',
        command_id: `hold-${name}`,
      });
      try {
        const body = await request({
          method: 'POST',
          path: '/v2/calls',
          json: {
            connection_id: connectionId,
            to: transfer.destination,
            from: transfer.from,
            timeout_secs: transfer.ringTimeoutSeconds,
            webhook_url: transfer.transferCallbackUrl,
            webhook_url_method: 'POST',
            client_state: encodeState({ transfer: name, step: 'dialed', ...(announcement ? { announcement } : {}) }),
            command_id: `transfer-${name}`,
          },
        });
        return { transferId: `${name}.${readBody(LABEL, Dialed, body).data.call_control_id}` };
      } catch (error) {
        // Nobody was dialed: the caller stops waiting.
        await stopHoldAudio(transfer.providerCallId).catch(() => undefined);
        throw error;
      }
    },

    /**
     * Carries the transfer on from its leg's event: the person answered, so the announcement is
     * spoken to them (or, without one, they join); the announcement ended, so they join. Returns the
     * event as it then stands: answered once joined, ringing before. Repeated events change nothing
     * (the commands are keyed, and a leg past the step refuses them).
     */
    async advance(event: TransferEvent, caller: string): Promise<TransferEvent> {
      const parsed = WarmLegEvent.safeParse(event.raw);
      if (!parsed.success || !caller) return event;
      const { event_type, payload } = parsed.data.data;
      const state = warmLegStateOf(payload.client_state);
      if (!state) return event;
      const leg = payload.call_control_id;
      const joined = { ...event, status: 'answered' as const };
      if (event_type === 'call.answered' && state.step === 'dialed') {
        if (!state.announcement) return (await join(state.transfer, leg, caller)) ? joined : event;
        await unlessSettled(
          command(leg, 'speak', {
            payload: state.announcement,
            voice: 'female',
            language: 'en-US',
            client_state: encodeState({ transfer: state.transfer, step: 'answered' }),
            command_id: `announce-${state.transfer}`,
          }),
        );
        return event;
      }
      if (event_type === 'call.speak.ended' && state.step === 'answered') {
        return (await join(state.transfer, leg, caller)) ? joined : event;
      }
      return event;
    },

    /**
     * The ring timeout passed without a join: a leg still ringing is hung up; a person hearing the
     * announcement takes the caller now (the workflow's look-up then finds the leg joined).
     */
    async cancel(caller: string, transferId: string): Promise<void> {
      const { transfer, leg } = partsOf(transferId);
      const current = await call(leg);
      if (!current?.is_alive) return;
      const step = warmLegStateOf(current.client_state)?.step;
      if (step === 'joined') return;
      if (step === 'answered') {
        await join(transfer, leg, caller);
        return;
      }
      await unlessSettled(command(leg, 'hangup', {}));
    },

    /**
     * Telnyx tells whether a call is up, not how it rings: a leg marked joined is answered; a caller
     * whose call ended has left (canceled); otherwise the events, or the ring timeout, tell.
     */
    async status(caller: string, transferId: string): Promise<TransferEvent | null> {
      const { leg } = partsOf(transferId);
      const current = await call(leg);
      if (current && warmLegStateOf(current.client_state)?.step === 'joined') {
        return { status: 'answered', transferId, providerCallId: leg, raw: { call: current } };
      }
      const callerCall = await call(caller);
      if (callerCall?.is_alive) return null;
      return { status: 'canceled', transferId, providerCallId: caller, raw: callerCall ? { call: callerCall } : {} };
    },

    /** The transfer ended without a join: its leg, if still up, is hung up, and the hold audio stops. */
    async release(caller: string, transferId: string): Promise<void> {
      const { leg } = partsOf(transferId);
      const current = await call(leg);
      if (current && warmLegStateOf(current.client_state)?.step === 'joined') return;
      if (current?.is_alive) await unlessSettled(command(leg, 'hangup', {}));
      await stopHoldAudio(caller);
    },
  };
}
