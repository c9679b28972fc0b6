import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { jsonReply } from '../../inbound';
import { ProviderError, type InboundWebhooks, type TelephonyProvider } from '../../provider';
import type { Secrets } from '../../secrets';
import { jsonObjectBody } from '../../status-fields';
import { AudioCallee } from './audio-callee';
import {
  createSimulatorCallRepository,
  type SimulatorCallRow,
} from '../../../entities/repositories/simulator-call.repository';
import type { SimulatorConfig } from './config';
import { processDispatcher, type SimulatorDispatcher } from './dispatcher';
import { simulatedStatus } from './timeline';
import { SIGNATURE_HEADER, simulatorSignature } from './webhook';

const WEBHOOK_TIMEOUT_MS = 10_000;

/** What the simulator posts to the inbound URL when it rings one of our numbers (signed like its status webhooks). */
export const SimulatorInboundBody = z.object({
  call_id: z.string().min(1),
  from: z.string().min(1).nullable(),
  to: z.string().min(1),
});

/** The simulator's "markup": stream the call to `stream_url` and report its statuses, or refuse it. */
export const SimulatorInboundReply = z.discriminatedUnion('action', [
  z.object({ action: z.literal('answer'), stream_url: z.string().min(1), status_callback_url: z.url() }),
  z.object({ action: z.literal('reject') }),
]);

const REJECT = jsonReply({ action: 'reject' });

export const simulatorInbound: InboundWebhooks = {
  parse(request) {
    const raw = jsonObjectBody(request.rawBody, 'The simulator');
    const parsed = SimulatorInboundBody.safeParse(raw);
    if (!parsed.success) throw new ProviderError('The simulator inbound webhook is not an inbound call');
    return {
      calledNumber: parsed.data.to,
      callerNumber: parsed.data.from,
      providerCallId: parsed.data.call_id,
      callerIdVerified: false,
      raw,
    };
  },
  refuseUnknown: () => REJECT,
};

export const simulatorAnswering: Pick<TelephonyProvider, 'answerCall' | 'rejectCall'> = {
  answerCall: (target) =>
    Promise.resolve(
      jsonReply({
        action: 'answer',
        stream_url: target.mediaStreamUrl,
        status_callback_url: target.statusCallbackUrl,
      }),
    ),
  rejectCall: () => Promise.resolve(REJECT),
};

export interface RingDeps {
  dataSource: DataSource;
  secrets: Secrets;
  /** The simulator configuration of the called number: how long the caller talks. */
  config: SimulatorConfig;
  fetch?: typeof fetch;
  now?: () => Date;
  dispatcher?: SimulatorDispatcher;
}

export interface RingRequest {
  /** The number rung (one of ours). */
  to: string;
  from: string | null;
  /** `${PUBLIC_BASE_URL}/api/v1/telephony/simulator/inbound`. */
  inboundUrl: string;
}

export interface RingResult {
  callId: string;
  answered: boolean;
}

/**
 * Makes the simulator place an inbound call: it posts the signed inbound webhook and, when the
 * reply answers, records the call in `simulator_calls` (answered now, talking `talk_seconds`) and
 * posts its status webhooks (answered, then completed) to the reply's status URL, as it does for
 * outbound calls. A reply that is not the simulator's markup is a ProviderError.
 */
export async function ringSimulatorNumber(deps: RingDeps, ring: RingRequest): Promise<RingResult> {
  const post = deps.fetch ?? fetch;
  const now = deps.now ?? (() => new Date());
  const signingKey = deps.secrets.deriveKey('simulator-webhooks');
  const callId = `SIM${randomUUID().replace(/-/g, '')}`;
  const body = JSON.stringify({ call_id: callId, from: ring.from, to: ring.to });
  let response: Response;
  let text: string;
  try {
    response = await post(ring.inboundUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: simulatorSignature(signingKey, body) },
      body,
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    text = await response.text();
  } catch {
    throw new ProviderError(`The inbound webhook at ${ring.inboundUrl} could not be reached`, undefined, true);
  }
  if (!response.ok) throw new ProviderError(`The inbound webhook answered ${response.status}`, response.status);
  let reply: z.output<typeof SimulatorInboundReply>;
  try {
    reply = SimulatorInboundReply.parse(JSON.parse(text));
  } catch {
    throw new ProviderError('The inbound webhook answered with something other than simulator markup');
  }
  if (reply.action === 'reject') return { callId, answered: false };

  const calls = createSimulatorCallRepository(deps.dataSource);
  const call: SimulatorCallRow = {
    providerCallId: callId,
    idempotencyKey: `inbound:${callId}`,
    toAddress: ring.to,
    fromAddress: ring.from,
    statusCallbackUrl: reply.status_callback_url,
    startedAt: now(),
    plannedOutcome: 'answered',
    ringSeconds: 0,
    talkSeconds: deps.config.talk_seconds,
    hungUpAt: null,
  };
  await calls.insert(call);
  const report = async (): Promise<void> => {
    // Read again: a hang-up since the answer changes the status.
    const current = (await calls.byId(callId).catch(() => null)) ?? call;
    const { status, durationSeconds } = simulatedStatus(current, now());
    const event = JSON.stringify({ call_id: callId, status, duration: durationSeconds });
    await post(call.statusCallbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: simulatorSignature(signingKey, event) },
      body: event,
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    })
      .then((answer) => answer.body?.cancel())
      // A lost delivery is left to the call workflow's status look-ups, as for outbound calls.
      .catch(() => undefined);
  };
  // With audio, the caller talks on the media stream the reply points at, until talk_seconds are up.
  if (deps.config.audio) {
    AudioCallee.connect({ mediaStreamUrl: reply.stream_url, providerCallId: callId, talkSeconds: call.talkSeconds });
  }
  (deps.dispatcher ?? processDispatcher).schedule(callId, [
    { afterMs: 0, deliver: report },
    { afterMs: call.talkSeconds * 1000, deliver: report },
  ]);
  return { callId, answered: true };
}
