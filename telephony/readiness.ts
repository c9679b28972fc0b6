import type { NumberForReadiness, Readiness } from './provider';

export const NO_CALLER_ID_REASON = 'No active phone number: add one to use as caller ID for outbound calls.';

/** Providers that dial from a caller id are ready once the configuration has an active number. */
export function requireActiveNumber(numbers: NumberForReadiness[]): Readiness {
  return numbers.some((number) => number.isActive) ? { ready: true } : { ready: false, reason: NO_CALLER_ID_REASON };
}
