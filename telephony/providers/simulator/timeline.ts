import type { SimulatedOutcome, SimulatorCall } from '../../../entities/simulator-call.entity';
import type { CallStatus, TransferStatus } from '../../provider';

/** The called number's last four digits choose the outcome; any other number is answered. */
export const MAGIC_SUFFIXES: Readonly<Record<string, SimulatedOutcome>> = {
  '0486': 'busy',
  '0408': 'no-answer',
  '0600': 'voicemail',
  '0503': 'failed',
};

export function plannedOutcome(to: string): SimulatedOutcome {
  return MAGIC_SUFFIXES[to.replace(/\D/g, '').slice(-4)] ?? 'answered';
}

export interface SimulatedStatus {
  status: CallStatus;
  durationSeconds: number;
  /** Set on a voicemail number's answer: the machine's greeting ended with its beep. */
  machine?: true;
}

type Timeline = Pick<SimulatorCall, 'startedAt' | 'plannedOutcome' | 'ringSeconds' | 'talkSeconds' | 'hungUpAt'>;

/** How long a voicemail box records a message before it hangs up. */
export const VOICEMAIL_BOX_SECONDS = 30;

/**
 * The call's status at `now`: it rings for `ringSeconds`, then takes its planned outcome; an
 * answered call talks for `talkSeconds` and completes. A voicemail number is answered by a machine
 * whose greeting ends with a beep at once: the call is `answered` (machine) while the box records,
 * for at most `VOICEMAIL_BOX_SECONDS`, and `voicemail` once it ends. A hang-up while ringing cancels
 * the call; a hang-up while talking (or recording) ends it early; a later hang-up changes nothing.
 */
export function simulatedStatus(call: Timeline, now: Date): SimulatedStatus {
  const endMs = Math.min(now.getTime(), call.hungUpAt?.getTime() ?? Infinity);
  const elapsed = (endMs - call.startedAt.getTime()) / 1000;
  const hungUp = call.hungUpAt !== null && call.hungUpAt.getTime() <= now.getTime();
  if (elapsed < call.ringSeconds) return { status: hungUp ? 'canceled' : 'ringing', durationSeconds: 0 };
  if (call.plannedOutcome === 'voicemail') {
    const recorded = Math.min(elapsed - call.ringSeconds, VOICEMAIL_BOX_SECONDS);
    if (recorded < VOICEMAIL_BOX_SECONDS && !hungUp) {
      return { status: 'answered', durationSeconds: Math.floor(recorded), machine: true };
    }
    return { status: 'voicemail', durationSeconds: Math.floor(recorded) };
  }
  if (call.plannedOutcome !== 'answered') return { status: call.plannedOutcome, durationSeconds: 0 };
  const talked = Math.min(elapsed - call.ringSeconds, call.talkSeconds);
  if (talked < call.talkSeconds && !hungUp) return { status: 'answered', durationSeconds: Math.floor(talked) };
  return { status: 'completed', durationSeconds: Math.floor(talked) };
}

/**
 * Seconds after the start at which the status changes: the moments worth a webhook, each once (with
 * zero ring or talk time several coincide, and one webhook then reports the status they reach).
 */
export function statusChangeOffsets(call: Timeline): number[] {
  const offsets = [0, call.ringSeconds];
  if (call.plannedOutcome === 'answered') offsets.push(call.ringSeconds + call.talkSeconds);
  if (call.plannedOutcome === 'voicemail') offsets.push(call.ringSeconds + VOICEMAIL_BOX_SECONDS);
  return [...new Set(offsets)];
}

type TransferTimeline = {
  startedAt: Date;
  ringSeconds: number;
  plannedOutcome: SimulatedOutcome;
  canceledAt: Date | null;
  /** How long the person talks once joined; null or absent: the call's `talkSeconds`. */
  talkSeconds?: number | null;
};

/** When a transfer's destination answers, if it does (and was not canceled first). */
export function transferAnsweredAt(transfer: TransferTimeline): Date | null {
  if (transfer.plannedOutcome !== 'answered') return null;
  const answeredAt = new Date(transfer.startedAt.getTime() + transfer.ringSeconds * 1000);
  return transfer.canceledAt && transfer.canceledAt < answeredAt ? null : answeredAt;
}

/**
 * The caller's call with its answered transfer: the person talks with the caller for the
 * transfer's `talkSeconds` (else the call's) from the moment they answer, unless the call was over before.
 */
export function withTransfer<T extends Timeline>(call: T, transfer: TransferTimeline | null): T {
  const answeredAt = transfer ? transferAnsweredAt(transfer) : null;
  if (!answeredAt || call.plannedOutcome !== 'answered' || simulatedStatus(call, answeredAt).status !== 'answered') {
    return call;
  }
  const talkedBefore = (answeredAt.getTime() - call.startedAt.getTime()) / 1000 - call.ringSeconds;
  return { ...call, talkSeconds: Math.ceil(talkedBefore) + (transfer?.talkSeconds ?? call.talkSeconds) };
}

/**
 * A transfer's status at `now`: its destination rings for `ringSeconds`, then takes its planned
 * outcome (by its last digits, as calls do), except that a `no-answer` destination rings until the
 * transfer is canceled. A cancel while ringing, or the caller's call ending first, cancels it.
 */
export function simulatedTransferStatus(transfer: TransferTimeline, call: Timeline, now: Date): TransferStatus {
  const answerMs = transfer.startedAt.getTime() + transfer.ringSeconds * 1000;
  const canceled = transfer.canceledAt && transfer.canceledAt.getTime() <= now.getTime() ? transfer.canceledAt : null;
  const callOver = (at: Date) => simulatedStatus(call, at).status !== 'answered';
  // A destination that never answers rings on until it is canceled or the caller's call ends.
  const ringsOn = transfer.plannedOutcome === 'no-answer';
  const decidedAt = new Date(ringsOn ? now.getTime() : Math.min(now.getTime(), answerMs));
  if (callOver(decidedAt)) return 'canceled';
  if (now.getTime() < answerMs || transfer.plannedOutcome === 'no-answer') return canceled ? 'canceled' : 'ringing';
  if (canceled && canceled.getTime() < answerMs) return 'canceled';
  if (transfer.plannedOutcome === 'voicemail') return 'no-answer';
  return transfer.plannedOutcome;
}
