import type { CallStatus } from '../../provider';

/** Twilio `CallStatus` (webhooks) and `status` (Call resource) onto the normalized statuses. */
export const TWILIO_STATUSES: Readonly<Record<string, CallStatus>> = {
  queued: 'initiated',
  initiated: 'initiated',
  ringing: 'ringing',
  'in-progress': 'answered',
  answered: 'answered',
  completed: 'completed',
  busy: 'busy',
  'no-answer': 'no-answer',
  failed: 'failed',
  canceled: 'canceled',
};

/**
 * Twilio's `AnsweredBy` as the call workflow takes it: any `machine_*` (`machine_start` with
 * `MachineDetection=Enable`, `machine_end_beep`, `machine_end_silence` or `machine_end_other` once
 * the greeting ended with `DetectMessageEnd`) is a machine; `fax` and `unknown` are neither.
 */
export function twilioAnsweredBy(answeredBy: string | null | undefined): 'human' | 'machine' | undefined {
  if (answeredBy === 'human') return 'human';
  if (answeredBy?.startsWith('machine_')) return 'machine';
  return undefined;
}

/**
 * The normalized status, or undefined for a value Twilio does not document. With answering-machine
 * detection on, a completed call that a machine answered (`AnsweredBy=machine_*`) is `voicemail`.
 */
export function twilioStatus(callStatus: string, answeredBy?: string | null): CallStatus | undefined {
  const status = TWILIO_STATUSES[callStatus];
  if (status === 'completed' && answeredBy?.startsWith('machine_')) return 'voicemail';
  return status;
}
