export interface WaitForOptions {
  /** How long to keep trying before the test fails (default 10 s). */
  timeoutMs?: number;
  /** Pause between two probes (default 25 ms). */
  intervalMs?: number;
}

type Truthy<T> = Exclude<T, undefined | null | false | 0 | ''>;

/**
 * Polls `probe` until it returns a truthy value, and resolves with that value. After `timeoutMs`
 * the wait fails with `timed out after … waiting for <what>`; `what` may be a function to describe
 * the last state seen.
 */
export async function waitFor<T>(
  what: string | (() => string),
  probe: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 25 }: WaitForOptions = {},
): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
