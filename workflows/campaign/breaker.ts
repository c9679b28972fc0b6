import type { CircuitBreakerConfig } from '../definitions';

/** One outcome the breaker has seen, in workflow time. */
export interface BreakerEntry {
  at: number;
  failed: boolean;
}

/** The figures a trip is logged with in `circuit_breaker_tripped`. */
export interface BreakerFigures {
  failure_rate: number;
  failure_count: number;
  call_count: number;
  threshold: number;
  window_seconds: number;
}

/** Breaker failures are `failed` and `error` outcomes (initiation failures report `error`). */
export const isBreakerFailure = (outcome: string): boolean => outcome === 'failed' || outcome === 'error';

/** The entries still inside the window at `nowMs`. */
export const withinWindow = (window: BreakerEntry[], config: CircuitBreakerConfig, nowMs: number): BreakerEntry[] =>
  window.filter((entry) => entry.at > nowMs - config.window_seconds * 1000);

/**
 * The window's figures when the breaker trips at `nowMs`, else null: it trips when at least
 * `min_calls_in_window` calls ended in the window and failures / calls >= `failure_threshold`
 * (both comparisons inclusive, as in the reference algorithm).
 */
export function breakerTrip(
  window: BreakerEntry[],
  config: CircuitBreakerConfig,
  nowMs: number,
): BreakerFigures | null {
  if (!config.enabled) return null;
  const recent = withinWindow(window, config, nowMs);
  const calls = recent.length;
  const failures = recent.filter((entry) => entry.failed).length;
  if (calls === 0 || calls < config.min_calls_in_window || failures / calls < config.failure_threshold) return null;
  return {
    failure_rate: failures / calls,
    failure_count: failures,
    call_count: calls,
    threshold: config.failure_threshold,
    window_seconds: config.window_seconds,
  };
}
