/**
 * Failures of a call's steps that retrying cannot fix. The call workflow lists their class names
 * in `nonRetryableErrorTypes`, so a refusal ends the call as `failed` instead of redialing.
 */

/** The provider refused the call (bad number, bad credentials, no balance...). */
export class ProviderRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderRefusedError';
  }
}

/** The run cannot be dialed as stored (no telephony configuration, deleted configuration, no number). */
export class CallSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallSetupError';
  }
}
