import { createHmac } from 'node:crypto';
import { z } from 'zod';
import { CALL_STATUSES, TRANSFER_STATUSES } from '../../provider';
import { signaturesMatch } from '../../webhook-signatures';

export const SIGNATURE_HEADER = 'x-simulator-signature';

/** What the simulator posts to a call's status callback URL. */
export const SimulatorWebhookBody = z.object({
  call_id: z.string().min(1),
  status: z.enum(CALL_STATUSES),
  duration: z.number().int().min(0),
  /** Answering-machine detection, on the `answered` event of a voicemail number: the beep was heard. */
  answered_by: z.enum(['human', 'machine_end_beep']).optional(),
});
export type SimulatorWebhookBody = z.output<typeof SimulatorWebhookBody>;

/** What the simulator posts to a transfer's callback URL. */
export const SimulatorTransferWebhookBody = z.object({
  transfer_id: z.string().min(1),
  call_id: z.string().min(1),
  status: z.enum(TRANSFER_STATUSES),
});

/** Hex HMAC-SHA256 of the raw body under the simulator's key (derived from SECRETS_KEY). */
export function simulatorSignature(key: Buffer, rawBody: string): string {
  return createHmac('sha256', key).update(rawBody, 'utf8').digest('hex');
}

export function simulatorSignatureValid(key: Buffer, rawBody: string, given: string | undefined): boolean {
  return given !== undefined && signaturesMatch(simulatorSignature(key, rawBody), given);
}
