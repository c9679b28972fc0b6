import { z } from 'zod';
import { durationOf, jsonObjectBody } from '../../status-fields';
import { ProviderError, type CallStatus, type StatusEvent, type WebhookRequest } from '../../provider';

/** Vonage `status` values (SDK enum CallStatus plus AMD results and WebSocket legs) → ours. */
const VONAGE_STATUS: Record<string, CallStatus> = {
  started: 'initiated',
  ringing: 'ringing',
  answered: 'answered',
  human: 'answered',
  machine: 'voicemail',
  complete: 'completed',
  completed: 'completed',
  disconnected: 'completed',
  busy: 'busy',
  // A declined call is treated like a busy line, so the campaign retries it.
  rejected: 'busy',
  timeout: 'no-answer',
  unanswered: 'no-answer',
  cancelled: 'no-answer',
  failed: 'failed',
};

/** The fields shared by event webhooks and `GET /v1/calls/{uuid}`; `duration` is seconds as a string. */
const vonageCallSchema = z.object({
  uuid: z.string().optional(),
  status: z.string(),
  duration: z.union([z.string(), z.number()]).optional(),
});

export function vonageStatusEvent(raw: Record<string, unknown>): StatusEvent {
  const parsed = vonageCallSchema.safeParse(raw);
  if (!parsed.success) throw new ProviderError('Vonage event carries no call status');
  const { uuid, status, duration } = parsed.data;
  const mapped = VONAGE_STATUS[status];
  if (!mapped) throw new ProviderError(`Vonage status "${status}" is not a call status`);
  return { status: mapped, providerCallId: uuid, ...durationOf(duration), raw };
}

export function parseVonageStatusWebhook(request: WebhookRequest): StatusEvent {
  return vonageStatusEvent(jsonObjectBody(request.rawBody, 'Vonage'));
}
