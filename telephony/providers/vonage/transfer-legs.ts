import type { TransferStatus } from '../../provider';

export const LABEL = 'Vonage';

/** A transfer leg's `status` (events and the call resource), as a transfer status. */
export const LEG_STATUSES: Readonly<Record<string, TransferStatus>> = {
  started: 'ringing',
  ringing: 'ringing',
  answered: 'answered',
  // A transfer leg completes only once it was answered.
  completed: 'answered',
  busy: 'busy',
  rejected: 'busy',
  timeout: 'no-answer',
  unanswered: 'no-answer',
  failed: 'failed',
  cancelled: 'canceled',
};

export const StillRinging = new Set(['started', 'ringing']);
