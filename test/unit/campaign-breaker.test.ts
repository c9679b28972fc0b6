import { breakerTrip, isBreakerFailure, type BreakerEntry } from '../../workflows/campaign/breaker';
import { shouldRetry } from '../../workflows/campaign/retry';
import type { CircuitBreakerConfig, RetryConfig } from '../../workflows/definitions';

const config: CircuitBreakerConfig = {
  enabled: true,
  failure_threshold: 0.5,
  window_seconds: 120,
  min_calls_in_window: 5,
};
const entries = (now: number, ...failed: boolean[]): BreakerEntry[] => failed.map((f) => ({ at: now, failed: f }));

describe('circuit breaker', () => {
  const now = 1_000_000_000;

  it('counts failed and error outcomes as failures, nothing else', () => {
    expect(['failed', 'error'].every(isBreakerFailure)).toBe(true);
    expect(['completed', 'busy', 'no-answer', 'voicemail', 'canceled'].some(isBreakerFailure)).toBe(false);
  });

  it('needs min_calls_in_window calls before it trips', () => {
    expect(breakerTrip(entries(now, true, true, true, true), config, now)).toBeNull();
    expect(breakerTrip(entries(now, true, true, true, true, true), config, now)).toEqual({
      failure_rate: 1,
      failure_count: 5,
      call_count: 5,
      threshold: 0.5,
      window_seconds: 120,
    });
  });

  it('trips at exactly the threshold (inclusive) and not below it', () => {
    expect(breakerTrip(entries(now, true, true, true, false, false, false), config, now)?.failure_rate).toBe(0.5);
    expect(breakerTrip(entries(now, true, true, false, false, false, false), config, now)).toBeNull();
    expect(breakerTrip(entries(now, true, true, true, true, true, false, false, false), config, now)).toMatchObject({
      failure_rate: 0.625,
      failure_count: 5,
      call_count: 8,
    });
  });

  it('forgets outcomes older than the window', () => {
    const old = entries(now - 121_000, true, true, true, true, true);
    expect(breakerTrip([...old, ...entries(now, true)], config, now)).toBeNull();
    const recent = entries(now - 119_000, true, true, true, true);
    expect(breakerTrip([...recent, ...entries(now, true)], config, now)?.call_count).toBe(5);
  });

  it('never trips when disabled', () => {
    expect(breakerTrip(entries(now, true, true, true, true, true), { ...config, enabled: false }, now)).toBeNull();
  });
});

describe('retry decision', () => {
  const retry: RetryConfig = {
    enabled: true,
    max_retries: 2,
    retry_delay_seconds: 120,
    retry_on_busy: true,
    retry_on_no_answer: true,
    retry_on_voicemail: false,
  };

  it('retries enabled outcomes up to max_retries (max_retries 2 = 3 attempts)', () => {
    expect(shouldRetry('busy', 1, retry)).toBe(true);
    expect(shouldRetry('no-answer', 2, retry)).toBe(true);
    expect(shouldRetry('busy', 3, retry)).toBe(false);
  });

  it('never retries disabled outcomes, failures, completions, or when retries are off', () => {
    expect(shouldRetry('voicemail', 1, retry)).toBe(false);
    for (const outcome of ['failed', 'error', 'completed', 'canceled'] as const) {
      expect(shouldRetry(outcome, 1, retry)).toBe(false);
    }
    expect(shouldRetry('busy', 1, { ...retry, enabled: false })).toBe(false);
    expect(shouldRetry('busy', 1, { ...retry, max_retries: 0 })).toBe(false);
  });
});
