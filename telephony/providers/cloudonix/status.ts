import { z } from 'zod';
import { jsonObjectBody } from '../../status-fields';
import { ProviderError, type CallStatus, type StatusEvent, type WebhookRequest } from '../../provider';

/** The CDR's `disposition` is the authoritative end of a Cloudonix call. */
const CDR_DISPOSITION_STATUS: Record<string, CallStatus> = {
  ANSWER: 'completed',
  BUSY: 'busy',
  NOANSWER: 'no-answer',
  CANCEL: 'canceled',
  FAILED: 'failed',
  CONGESTION: 'failed',
};

const cdrSchema = z.object({
  disposition: z.string(),
  billsec: z.coerce.number().nonnegative().optional(),
  session: z.object({ token: z.string() }).optional(),
});

/** Cloudonix's per-session updates are too chatty (and their status field undocumented); the CDR is parsed. */
export function parseCloudonixCdr(request: WebhookRequest): StatusEvent {
  const raw = jsonObjectBody(request.rawBody, 'Cloudonix');
  const parsed = cdrSchema.safeParse(raw);
  if (!parsed.success) throw new ProviderError('Cloudonix webhook is not a CDR');
  const { disposition, billsec, session } = parsed.data;
  const status = CDR_DISPOSITION_STATUS[disposition.toUpperCase()];
  if (!status) throw new ProviderError(`Cloudonix disposition "${disposition}" is not a call status`);
  return { status, providerCallId: session?.token, durationSeconds: billsec ?? 0, raw };
}
