import type { VoicemailAction } from '../../workflows/campaign/settings-change';

/** A machine's answer is retried as `retry_config.retry_on_voicemail` says unless the campaign asks otherwise. */
export const DEFAULT_VOICEMAIL_ACTION: VoicemailAction = 'retry_later';

/** The campaign settings' defaults; a create fills what the body leaves out. */
export const DEFAULT_RETRY_CONFIG = {
  enabled: true,
  max_retries: 2,
  retry_delay_seconds: 120,
  retry_on_busy: true,
  retry_on_no_answer: true,
  retry_on_voicemail: true,
};
export const DEFAULT_CIRCUIT_BREAKER = {
  enabled: false,
  failure_threshold: 0.5,
  window_seconds: 120,
  min_calls_in_window: 5,
};
export const DEFAULT_MAX_CONCURRENCY = 10;
