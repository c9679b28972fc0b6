/**
 * Failures of a post-call webhook delivery. The workflow lists the non-retryable names in
 * `nonRetryableErrorTypes`: a refused address or a 4xx answer will not change by trying again.
 */

/** The URL is not allowed: a private, loopback or otherwise internal address, or not http(s). */
export class WebhookRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookRefusedError';
  }
}

/** The receiver rejected the request (4xx other than 408 and 429) or redirected it. */
export class WebhookRejectedError extends Error {
  constructor(
    message: string,
    readonly httpStatus: number,
  ) {
    super(message);
    this.name = 'WebhookRejectedError';
  }
}

/** A failure worth another try: a network error, a timeout, a 5xx, 408 or 429. */
export class WebhookDeliveryError extends Error {
  constructor(
    message: string,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'WebhookDeliveryError';
  }
}
