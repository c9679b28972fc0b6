import type { SimulatedOutcome, SimulatorCall } from '../../../entities/simulator-call.entity';
import type { CallStatus } from '../../provider';

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
}

type Timeline = Pick<SimulatorCall, 'startedAt' | 'plannedOutcome' | 'ringSeconds' | 'talkSeconds' | 'hungUpAt'>;

/**
 * The call's status at `now`: it rings for `ringSeconds`, then takes its planned outcome; an
 * answered call talks for `talkSeconds` and completes. A hang-up while ringing cancels the call;
 * a hang-up while talking completes it early; a later hang-up changes nothing.
 */
export function simulatedStatus(call: Timeline, now: Date): SimulatedStatus {
  const endMs = Math.min(now.getTime(), call.hungUpAt?.getTime() ?? Infinity);
  const elapsed = (endMs - call.startedAt.getTime()) / 1000;
  const hungUp = call.hungUpAt !== null && call.hungUpAt.getTime() <= now.getTime();
  if (elapsed < call.ringSeconds) return { status: hungUp ? 'canceled' : 'ringing', durationSeconds: 0 };
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
  return [...new Set(offsets)];
}
