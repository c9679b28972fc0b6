import { connectStreamDocument, webhookFields, xmlReply } from '../../inbound';
import {
  ProviderError,
  type AnswerTarget,
  type ProviderReply,
  type StartTransferRequest,
  type TelephonyTransfer,
  type TransferEvent,
  type TransferStatus,
  type WebhookRequest,
} from '../../provider';
import { transferCallbackFor, transferIdOf, transferIdOfCallback } from '../../transfer-callback';
import { dialDocument } from '../../twiml-dial';

const LABEL = 'Cloudonix';

/**
 * Which request of a transfer reached the callback, by the `step` the adapter put in its URL:
 * `events` is the dialed leg's `statusCallback`, `result` the dial's `action` (how the dial ended).
 */
const STEP_PARAM = 'step';
type Step = 'events' | 'result';

/**
 * The dialed leg's status: cXML's TwiML names (`CallStatus` at the leg's status callback,
 * `DialCallStatus` at the dial's action), and the session statuses Cloudonix's own session
 * notifications use (`status`: `connected`, `noanswer`, `cancel`…).
 */
const LEG_STATUSES: Readonly<Record<string, TransferStatus>> = {
  queued: 'ringing',
  initiated: 'ringing',
  processing: 'ringing',
  ringing: 'ringing',
  'in-progress': 'answered',
  answered: 'answered',
  connected: 'answered',
  // A dialed leg completes only once it was answered and joined.
  completed: 'answered',
  busy: 'busy',
  'no-answer': 'no-answer',
  noanswer: 'no-answer',
  failed: 'failed',
  error: 'failed',
  congestion: 'failed',
  nocredit: 'failed',
  canceled: 'canceled',
  cancel: 'canceled',
};

const HANGUP = xmlReply('<Response><Hangup/></Response>');

export interface CloudonixSessions {
  /** Replaces the voice application of a live session (`POST /calls/{domain}/sessions/{token}/application`). */
  switchApplication(token: string, cxml: string): Promise<void>;
}

/**
 * Blind transfers by switching the caller's live session to a cXML `<Dial>` of the destination
 * (the caller leaves the media stream and hears it ring). The dialed leg's progress goes to the
 * transfer callback, and so does the dial's `action`: when the dial ends without a join, its answer
 * streams the caller back to the agent; after a joined call it hangs up. The dial's own `timeout`
 * is the ring timeout, so a destination still ringing needs no cancel. Cloudonix documents no
 * look-up of a dialed leg: the workflow learns the outcome from these callbacks alone.
 */
export function cloudonixTransfer(sessions: CloudonixSessions): TelephonyTransfer {
  return {
    async start(request: StartTransferRequest) {
      if (request.mode !== 'blind') throw new ProviderError('Cloudonix transfers are blind only');
      const transferId = transferIdOf(request.idempotencyKey);
      const callback = transferCallbackFor(request.transferCallbackUrl, transferId);
      await sessions.switchApplication(
        request.providerCallId,
        dialDocument(request, {
          actionUrl: withStep(callback, 'result'),
          statusCallbackUrl: withStep(callback, 'events'),
        }),
      );
      return { transferId };
    },

    // The dial stops ringing at its own timeout, the ring timeout; a late cancel must not cut a join.
    cancel: () => Promise.resolve(),

    status: () => Promise.resolve(null),

    parseWebhook(request: WebhookRequest): TransferEvent {
      const transferId = transferIdOfCallback(request, LABEL);
      const fields = webhookFields(request, LABEL);
      const step = stepOf(request);
      const reported = text(step === 'result' ? fields.DialCallStatus : (fields.CallStatus ?? fields.status));
      const status = LEG_STATUSES[reported.toLowerCase()];
      if (!status) throw new ProviderError(`Cloudonix sent an unknown dial status: ${reported || '(none)'}`);
      const leg = fields.DialCallSid ?? fields.CallSid ?? fields.Session;
      return { status, transferId, ...(typeof leg === 'string' ? { providerCallId: leg } : {}), raw: fields };
    },

    markup(request: WebhookRequest, caller: AnswerTarget): ProviderReply | null {
      if (stepOf(request) !== 'result') return null;
      const status = LEG_STATUSES[text(webhookFields(request, LABEL).DialCallStatus).toLowerCase()];
      // Joined and over: the call ends. Not joined: back to the agent on a new stream.
      return status === 'answered' ? HANGUP : xmlReply(connectStreamDocument(caller.mediaStreamUrl));
    },
  };
}

/** A field's text; anything but a string or a number is none. */
const text = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');

function stepOf(request: WebhookRequest): Step {
  const query = request.url.split('#')[0]?.split('?')[1] ?? '';
  const step = new URLSearchParams(query).get(STEP_PARAM);
  if (step !== 'events' && step !== 'result') throw new ProviderError('Cloudonix transfer webhook names no step');
  return step;
}

const withStep = (url: string, step: Step): string => {
  const parsed = new URL(url);
  parsed.searchParams.set(STEP_PARAM, step);
  return parsed.toString();
};
