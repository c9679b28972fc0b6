import type { ProviderRequest, ProviderResponse } from '../../http';
import type { TransferStatus } from '../../provider';

export const LABEL = 'Twilio';

/** A dialed leg's `CallStatus` (status callbacks) and `status` (Call resource), as a transfer status. */
export const LEG_STATUSES: Readonly<Record<string, TransferStatus>> = {
  queued: 'ringing',
  initiated: 'ringing',
  ringing: 'ringing',
  'in-progress': 'answered',
  answered: 'answered',
  // A dialed leg completes only once it was answered and joined.
  completed: 'answered',
  busy: 'busy',
  'no-answer': 'no-answer',
  failed: 'failed',
  canceled: 'canceled',
};

export const StillRinging = new Set(['queued', 'initiated', 'ringing']);

export interface TwilioCalls {
  call(request: ProviderRequest): Promise<ProviderResponse>;
  /** `/2010-04-01/Accounts/{sid}` */
  account: string;
  callPath(sid: string): string;
  now(): Date;
}
