import type { RetryConfig, TerminalCallStatus } from '../definitions';

/** Whether an attempt's outcome is retried: an enabled outcome with retries left (max_retries 2 = 3 attempts). */
export function shouldRetry(outcome: TerminalCallStatus, attempt: number, config: RetryConfig): boolean {
  if (!config.enabled || attempt > config.max_retries) return false;
  if (outcome === 'busy') return config.retry_on_busy;
  if (outcome === 'no-answer') return config.retry_on_no_answer;
  if (outcome === 'voicemail') return config.retry_on_voicemail;
  return false;
}
