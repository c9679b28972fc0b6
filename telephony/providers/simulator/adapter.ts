import { randomUUID } from 'node:crypto';
import {
  ProviderError,
  type OriginateRequest,
  type ProviderContext,
  type StatusEvent,
  type TelephonyProvider,
  type WebhookRequest,
} from '../../provider';
import { requireActiveNumber } from '../../readiness';
import { AudioCallee, hangUpAudioCallee } from './audio-callee';
import { createSimulatorCalls, type SimulatorCallRow } from './calls';
import type { SimulatorConfig } from './config';
import { processDispatcher, type SimulatorDispatcher } from './dispatcher';
import { simulatorAnswering } from './inbound';
import { plannedOutcome, simulatedStatus, statusChangeOffsets, VOICEMAIL_BOX_SECONDS } from './timeline';
import { SIGNATURE_HEADER, SimulatorWebhookBody, simulatorSignature, simulatorSignatureValid } from './webhook';
import { parseJson } from '../../../platform/json';

const WEBHOOK_TIMEOUT_MS = 5_000;

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
  const rows = createSimulatorCalls(dataSource);
  const signingKey = secrets.deriveKey('simulator-webhooks');
  const now = context.now ?? (() => new Date());
  const post = context.fetch ?? fetch;

  const statusEvent = (call: SimulatorCallRow): StatusEvent => {
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
    const call = await rows.byId(providerCallId).catch(() => null);
    if (!call) return;
    const { status, durationSeconds, machine } = simulatedStatus(call, now());
    const body = JSON.stringify({
      call_id: call.providerCallId,
      status,
      duration: durationSeconds,
      ...(machine ? { answered_by: 'machine_end_beep' } : {}),
    });
    await post(call.statusCallbackUrl, {
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
      return call ? statusEvent(call) : null;
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
  };
}
