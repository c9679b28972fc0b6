import type { CallStatus } from '../../provider';

/**
 * Plivo's (and Vobiz's) `CallStatus`, or failing that `Event`, onto the normalized statuses. The
 * answer URL receives `Event=StartApp`, the ring URL `Event=Ring`, the hangup URL `Event=Hangup`.
 */
export const PLIVO_STATUSES: Readonly<Record<string, CallStatus>> = {
  initiated: 'initiated',
  queued: 'initiated',
  ring: 'ringing',
  ringing: 'ringing',
  'in-progress': 'answered',
  answered: 'answered',
  startapp: 'answered',
  completed: 'completed',
  hangup: 'completed',
  stopstream: 'completed',
  busy: 'busy',
  'no-answer': 'no-answer',
  timeout: 'no-answer',
  cancel: 'canceled',
  cancelled: 'canceled',
  canceled: 'canceled',
  failed: 'failed',
};

export function plivoStatus(callStatus: string | undefined, event: string | undefined): CallStatus | undefined {
  return PLIVO_STATUSES[(callStatus ?? '').toLowerCase()] ?? PLIVO_STATUSES[(event ?? '').toLowerCase()];
}

/**
 * A finished call's record (CDR) has no status, only a hangup cause. The documented cause codes
 * are classified; any other cause is `completed` when the call lasted, `failed` when it never did.
 */
export const PLIVO_HANGUP_CAUSES: Readonly<Record<number, CallStatus>> = {
  1000: 'canceled',
  2000: 'failed',
  2010: 'failed',
  4000: 'completed',
  4010: 'completed',
};

export function plivoRecordStatus(hangupCauseCode: number | undefined, callDurationSeconds: number): CallStatus {
  return (
    (hangupCauseCode === undefined ? undefined : PLIVO_HANGUP_CAUSES[hangupCauseCode]) ??
    (callDurationSeconds > 0 ? 'completed' : 'failed')
  );
}
