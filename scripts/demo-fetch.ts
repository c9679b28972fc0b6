import { retryAfterSeconds } from '../telephony/http';

/** How long and how often the demo waits when the API asks it to come back later. */
export interface RetryAfterPolicy {
  /** The longest `Retry-After` waited out; a longer one is answered to the caller as it is. */
  maxWaitSeconds: number;
  /** Waits per request; the answer after the last one is the caller's, whatever it is. */
  maxWaits: number;
  /** Told before each wait. */
  onWait?: (status: number, seconds: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

export const DEMO_RETRY_AFTER: RetryAfterPolicy = { maxWaitSeconds: 60, maxWaits: 3 };

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `fetch`, waiting out a 429 or 503 that carries a `Retry-After` (seconds or an HTTP date) within
 * the policy's bounds and sending the same request again. Any other answer, or one whose wait is
 * too long or comes after the last wait, is returned as it is. The body must be resendable (a string).
 */
export async function fetchWaitingOutRetryAfter(
  url: string,
  init: RequestInit & { body?: string },
  policy: RetryAfterPolicy = DEMO_RETRY_AFTER,
): Promise<Response> {
  const sleep = policy.sleep ?? pause;
  for (let waits = 0; ; waits += 1) {
    const res = await fetch(url, init);
    const seconds = [429, 503].includes(res.status) ? retryAfterSeconds(res.headers.get('retry-after')) : undefined;
    if (seconds === undefined || seconds > policy.maxWaitSeconds || waits >= policy.maxWaits) return res;
    policy.onWait?.(res.status, seconds);
    await res.body?.cancel();
    await sleep(seconds * 1000);
  }
}
