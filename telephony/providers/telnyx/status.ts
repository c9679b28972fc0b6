import { z } from 'zod';
import { jsonObjectBody } from '../../status-fields';
import { ProviderError, type CallStatus, type StatusEvent, type WebhookRequest } from '../../provider';

/** `call.hangup` ends every call; its `hangup_cause` says how (Telnyx SDK enum plus the causes Dograh maps). */
const HANGUP_CAUSE_STATUS: Record<string, CallStatus> = {
  normal_clearing: 'completed',
  time_limit: 'completed',
  user_busy: 'busy',
  timeout: 'no-answer',
  no_answer: 'no-answer',
  originator_cancel: 'canceled',
  call_rejected: 'failed',
  unallocated_number: 'failed',
  not_found: 'failed',
};

/** When the cause is `unspecified` (or new), the SIP code still tells busy and unanswered calls apart. */
const SIP_CAUSE_STATUS: Record<string, CallStatus> = {
  '486': 'busy',
  '600': 'busy',
  '408': 'no-answer',
  '480': 'no-answer',
  '487': 'no-answer',
  '404': 'failed',
  '484': 'failed',
  '603': 'failed',
};

const MACHINE_DETECTION_STATUS: Record<string, CallStatus> = {
  human: 'answered',
  not_sure: 'answered',
  machine: 'voicemail',
};

const telnyxWebhookSchema = z.object({
  data: z.object({
    event_type: z.string(),
    payload: z
      .object({
        call_control_id: z.string().optional(),
        hangup_cause: z.string().optional(),
        sip_hangup_cause: z.string().optional(),
        result: z.string().optional(),
      })
      .default({}),
  }),
});
type TelnyxEvent = z.infer<typeof telnyxWebhookSchema>['data'];

export function parseTelnyxStatusWebhook(request: WebhookRequest): StatusEvent {
  const raw = jsonObjectBody(request.rawBody, 'Telnyx');
  const parsed = telnyxWebhookSchema.safeParse(raw);
  if (!parsed.success) throw new ProviderError('Telnyx webhook is not a call event');
  const event = parsed.data.data;
  const status = telnyxEventStatus(event);
  if (!status) throw new ProviderError(`Telnyx event "${event.event_type}" carries no call status`);
  // call.hangup carries no duration: the call workflow measures it from the call.answered event.
  return { status, providerCallId: event.payload.call_control_id, raw };
}

function telnyxEventStatus({ event_type, payload }: TelnyxEvent): CallStatus | undefined {
  switch (event_type) {
    case 'call.initiated':
      return 'initiated';
    case 'call.answered':
      return 'answered';
    case 'call.machine.detection.ended':
      return MACHINE_DETECTION_STATUS[payload.result ?? ''];
    case 'call.hangup':
      return (
        HANGUP_CAUSE_STATUS[payload.hangup_cause ?? ''] ??
        SIP_CAUSE_STATUS[payload.sip_hangup_cause ?? ''] ??
        'completed'
      );
    default:
      return undefined;
  }
}
