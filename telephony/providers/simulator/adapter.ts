import { randomUUID } from 'node:crypto';
import {
  ProviderError,
  type OriginateRequest,
  type ProviderContext,
  type StartTransferRequest,
  type StatusEvent,
  type TelephonyProvider,
  type TelephonyTransfer,
  type TransferEvent,
  type WebhookRequest,
} from '../../provider';
import { requireActiveNumber } from '../../readiness';
import { AudioCallee, audioCalleeOf, hangUpAudioCallee, TRANSFER_PERSON_LINE } from './audio-callee';
import {
  createSimulatorCallRepository,
  type SimulatorCallRow,
} from '../../../entities/repositories/simulator-call.repository';
import type { SimulatorConfig } from './config';
import { processDispatcher, type SimulatorDispatcher } from './dispatcher';
import { simulatorAnswering } from './inbound';
import {
  plannedOutcome,
  simulatedStatus,
  simulatedTransferStatus,
  statusChangeOffsets,
  transferAnsweredAt,
  VOICEMAIL_BOX_SECONDS,
  withTransfer,
} from './timeline';
import {
  createSimulatorTransferRepository,
  type SimulatorTransferRow,
} from '../../../entities/repositories/simulator-transfer.repository';
import {
  SIGNATURE_HEADER,
  SimulatorTransferWebhookBody,
  SimulatorWebhookBody,
  simulatorSignature,
  simulatorSignatureValid,
} from './webhook';
import { parseJson } from '../../../platform/json';
import { parseWavHeader, WAV_HEADER_BYTES } from '../../../voice/wav';

const WEBHOOK_TIMEOUT_MS = 5_000;
/** Hold audio larger than this is no hold audio (a minute at 8 kHz is under 1 MB). */
const MAX_HOLD_AUDIO_BYTES = 4 * 1024 * 1024;

/**
 * The virtual carrier: calls are rows in `simulator_calls`, their status a function of the row
 * and the clock, and status webhooks are posted signed like a real provider's.
 */
export function createSimulatorProvider(
  config: SimulatorConfig,
  context: ProviderContext = {},
  dispatcher: SimulatorDispatcher = processDispatcher,
): TelephonyProvider {
  const { dataSource, secrets } = context;
  if (!dataSource || !secrets) throw new Error('The simulator provider needs the database and the secrets key');
  const rows = createSimulatorCallRepository(dataSource);
  const transfers = createSimulatorTransferRepository(dataSource);
  const signingKey = secrets.deriveKey('simulator-webhooks');
  const now = context.now ?? (() => new Date());
  const post = context.fetch ?? fetch;

  /** The call as its answered transfer, if any, extends it. */
  const current = async (call: SimulatorCallRow): Promise<SimulatorCallRow> =>
    withTransfer(call, await transfers.answeredOf(call.providerCallId));

  const statusEvent = async (row: SimulatorCallRow): Promise<StatusEvent> => {
    const call = await current(row);
    const { status, durationSeconds, machine } = simulatedStatus(call, now());
    return {
      status,
      durationSeconds,
      providerCallId: call.providerCallId,
      ...(machine ? { answeredBy: 'machine' as const } : {}),
      raw: { simulated: true },
    };
  };

  /** Posts the call's current status; a failed delivery is left to getCallStatus reconciliation. */
  const report = async (providerCallId: string): Promise<void> => {
    const row = await rows.byId(providerCallId).catch(() => null);
    if (!row) return;
    const call = await current(row);
    const { status, durationSeconds, machine } = simulatedStatus(call, now());
    await postSigned(
      call.statusCallbackUrl,
      JSON.stringify({
        call_id: call.providerCallId,
        status,
        duration: durationSeconds,
        ...(machine ? { answered_by: 'machine_end_beep' } : {}),
      }),
    );
  };

  const transferEvent = async (transfer: SimulatorTransferRow): Promise<TransferEvent> => {
    const call = await rows.byId(transfer.providerCallId);
    const status = call ? simulatedTransferStatus(transfer, call, now()) : 'canceled';
    return {
      status,
      transferId: transfer.transferId,
      providerCallId: transfer.providerCallId,
      raw: { simulated: true, destination: transfer.destination },
    };
  };

  /** Posts the transfer's current status to its callback; a failed delivery is left to reconciliation. */
  const reportTransfer = async (transferId: string): Promise<void> => {
    const transfer = await transfers.byId(transferId).catch(() => null);
    if (!transfer) return;
    const { status } = await transferEvent(transfer);
    await postSigned(
      transfer.callbackUrl,
      JSON.stringify({ transfer_id: transfer.transferId, call_id: transfer.providerCallId, status }),
    );
  };

  const postSigned = async (url: string, body: string): Promise<void> => {
    await post(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: simulatorSignature(signingKey, body) },
      body,
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    })
      .then((response) => response.body?.cancel())
      .catch(() => undefined);
  };

  /** The carrier behaviours a configuration asks for: an outage, or its own rate limit (429). */
  const refuseLikeACarrier = async (request: OriginateRequest): Promise<void> => {
    const status = config.dial_error_status;
    if (status !== undefined) {
      throw new ProviderError(`The simulator answered ${status}`, status, status === 429 || status >= 500);
    }
    if (config.max_calls_per_second === undefined) return;
    // A repeat of a dial already placed is answered with that call, never refused.
    if (await rows.byIdempotencyKey(request.idempotencyKey)) return;
    const last = await rows.lastDialFrom(request.from);
    if (last && now().getTime() - last.getTime() < 1000 / config.max_calls_per_second) {
      throw new ProviderError('The simulator answered 429: Too Many Requests', 429, true, 1);
    }
  };

  return {
    /** The same idempotency key always yields the first call's id, and dials (schedules) nothing new. */
    async originate(request: OriginateRequest) {
      await refuseLikeACarrier(request);
      const candidate: SimulatorCallRow = {
        providerCallId: `SIM${randomUUID().replace(/-/g, '')}`,
        idempotencyKey: request.idempotencyKey,
        toAddress: request.to,
        fromAddress: request.from,
        statusCallbackUrl: request.statusCallbackUrl,
        startedAt: now(),
        plannedOutcome: plannedOutcome(request.to),
        ringSeconds: config.ring_seconds,
        talkSeconds: config.talk_seconds,
        hungUpAt: null,
      };
      // A first dial inserts its row; a repeat of its key finds the first dial's row instead.
      const dialed = await rows.insert(candidate);
      const call = dialed ? candidate : await rows.byIdempotencyKey(request.idempotencyKey);
      if (!call) throw new ProviderError('The simulator lost a call it had placed', 500, true);
      if (dialed) {
        const deliveries = statusChangeOffsets(call).map((offset) => ({
          afterMs: offset * 1000,
          deliver: () => report(call.providerCallId),
        }));
        // With audio, a person picks up and talks on the media stream until talk_seconds are up; on
        // a voicemail number, the box records what is said until it is full.
        const machine = call.plannedOutcome === 'voicemail';
        if (config.audio && (call.plannedOutcome === 'answered' || machine)) {
          deliveries.push({
            afterMs: call.ringSeconds * 1000,
            deliver: () => {
              AudioCallee.connect({
                mediaStreamUrl: request.mediaStreamUrl,
                providerCallId: call.providerCallId,
                talkSeconds: machine ? VOICEMAIL_BOX_SECONDS : call.talkSeconds,
                machine,
              });
              return Promise.resolve();
            },
          });
        }
        dispatcher.schedule(call.providerCallId, deliveries);
      }
      return { providerCallId: call.providerCallId };
    },

    async getCallStatus(providerCallId: string) {
      const call = await rows.byId(providerCallId);
      return call ? await statusEvent(call) : null;
    },

    async hangup(providerCallId: string) {
      if (!(await rows.hangUp(providerCallId, now()))) {
        if (!(await rows.byId(providerCallId))) throw new ProviderError('The simulator knows no such call', 404);
        return;
      }
      dispatcher.cancel(providerCallId);
      hangUpAudioCallee(providerCallId);
      await report(providerCallId);
    },

    parseStatusWebhook(request: WebhookRequest): StatusEvent {
      const parsed = SimulatorWebhookBody.safeParse(parseJson(request.rawBody));
      if (!parsed.success) throw new ProviderError('The simulator webhook body is not a status report');
      const { call_id, status, duration, answered_by } = parsed.data;
      return {
        status,
        providerCallId: call_id,
        durationSeconds: duration,
        ...(answered_by === 'machine_end_beep' ? { answeredBy: 'machine' as const } : {}),
        ...(answered_by === 'human' ? { answeredBy: 'human' as const } : {}),
        raw: parsed.data,
      };
    },

    verifyWebhook(request: WebhookRequest) {
      return simulatorSignatureValid(signingKey, request.rawBody, request.headers[SIGNATURE_HEADER]);
    },

    configureInbound() {
      return Promise.resolve({ ok: true, message: 'The simulator needs no inbound configuration.' });
    },

    readiness: requireActiveNumber,
    ...simulatorAnswering,
    transfer: simulatorTransfer(),
  };

  /**
   * Transfers of answered calls: the destination's last digits choose its outcome as a called
   * number's do; once it answers, the person talks with the caller for `talk_seconds`.
   */
  function simulatorTransfer(): TelephonyTransfer {
    const deliveryKey = (transferId: string) => `transfer:${transferId}`;
    const personTalkSeconds = config.transfer_talk_seconds ?? config.talk_seconds;

    /**
     * With audio, the person on the call hears the hold audio while the destination rings, fetched
     * from `holdAudioUrl` as a carrier would; a fetch that fails leaves them in silence.
     */
    const startHold = async (request: StartTransferRequest): Promise<void> => {
      const callee = audioCalleeOf(request.providerCallId);
      if (!callee) return;
      const samples = await fetchHoldAudio(request.holdAudioUrl);
      if (samples) callee.hold(samples);
    };

    const fetchHoldAudio = async (url: string): Promise<Int16Array | null> => {
      try {
        const response = await post(url, { signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS) });
        if (!response.ok) {
          await response.body?.cancel();
          return null;
        }
        const bytes = Buffer.from(await response.arrayBuffer());
        const format = parseWavHeader(bytes);
        if (!format || bytes.length > MAX_HOLD_AUDIO_BYTES) return null;
        if (format.sampleRate !== 8000 || format.channels !== 1 || format.bitsPerSample !== 16) return null;
        const data = bytes.subarray(WAV_HEADER_BYTES, WAV_HEADER_BYTES + format.dataBytes);
        return new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + (data.length & ~1)));
      } catch {
        return null;
      }
    };

    /** The hold is over (answered, failed or canceled): the row keeps how much the caller heard. */
    const endHold = async (transfer: SimulatorTransferRow, joined: boolean): Promise<void> => {
      const callee = audioCalleeOf(transfer.providerCallId);
      if (!callee) return;
      const heard = joined ? callee.joinTransfer(TRANSFER_PERSON_LINE, personTalkSeconds) : callee.endHold();
      await transfers.heldFor(transfer.transferId, heard);
    };

    return {
      async start(request: StartTransferRequest) {
        const repeat = await transfers.byIdempotencyKey(request.idempotencyKey);
        if (repeat) return { transferId: repeat.transferId };
        const row = await rows.byId(request.providerCallId);
        if (!row) throw new ProviderError('The simulator knows no such call', 404);
        const call = await current(row);
        if (simulatedStatus(call, now()).status !== 'answered') {
          throw new ProviderError('The simulator cannot transfer a call that is not in progress', 409);
        }
        const outcome = plannedOutcome(request.destination);
        const transfer: SimulatorTransferRow = {
          transferId: `SIMT${randomUUID().replace(/-/g, '')}`,
          providerCallId: request.providerCallId,
          idempotencyKey: request.idempotencyKey,
          destination: request.destination,
          // A voicemail number's box is no person: the transfer rings out.
          plannedOutcome: outcome === 'voicemail' ? 'no-answer' : outcome,
          startedAt: now(),
          ringSeconds: config.ring_seconds,
          callbackUrl: request.transferCallbackUrl,
          canceledAt: null,
          // The person hears it as they answer, before the caller is joined.
          announcement: request.mode === 'warm' ? request.announcement : null,
          holdAudioMs: null,
          talkSeconds: config.transfer_talk_seconds ?? null,
        };
        if (!(await transfers.insert(transfer))) {
          const raced = await transfers.byIdempotencyKey(request.idempotencyKey);
          if (!raced) throw new ProviderError('The simulator lost a transfer it had started', 500, true);
          return { transferId: raced.transferId };
        }
        const deliveries = [0, transfer.ringSeconds].map((offset) => ({
          afterMs: offset * 1000,
          deliver: () => reportTransfer(transfer.transferId),
        }));
        const answeredAt = transferAnsweredAt(transfer);
        if (config.audio) {
          void startHold(request);
          // A destination that rings out holds the caller until the transfer is canceled.
          if (transfer.plannedOutcome !== 'no-answer') {
            deliveries.unshift({
              afterMs: transfer.ringSeconds * 1000,
              deliver: () => endHold(transfer, answeredAt !== null),
            });
          }
        }
        if (answeredAt) {
          // The call's end moves to the end of the person's talk.
          const ended = withTransfer(row, transfer);
          const endMs = row.startedAt.getTime() + (ended.ringSeconds + ended.talkSeconds) * 1000;
          deliveries.push({ afterMs: endMs - now().getTime(), deliver: () => report(row.providerCallId) });
        }
        dispatcher.schedule(deliveryKey(transfer.transferId), deliveries);
        return { transferId: transfer.transferId };
      },

      async cancel(_providerCallId: string, transferId: string) {
        const transfer = await transfers.byId(transferId);
        if (!transfer || (await transferEvent(transfer)).status !== 'ringing') return;
        await transfers.cancel(transferId, now());
        dispatcher.cancel(deliveryKey(transferId));
        await endHold(transfer, false);
        await reportTransfer(transferId);
      },

      async status(_providerCallId: string, transferId: string) {
        const transfer = await transfers.byId(transferId);
        return transfer ? await transferEvent(transfer) : null;
      },

      parseWebhook(request: WebhookRequest): TransferEvent {
        const parsed = SimulatorTransferWebhookBody.safeParse(parseJson(request.rawBody));
        if (!parsed.success) throw new ProviderError('The simulator webhook body is not a transfer report');
        const { transfer_id, call_id, status } = parsed.data;
        return { status, transferId: transfer_id, providerCallId: call_id, raw: parsed.data };
      },
    };
  }
}
