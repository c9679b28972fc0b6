import type { DataSource } from 'typeorm';
import type { Config } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import { TooManyRequestsError } from '../errors';

export interface LoginThrottle {
  /**
   * Counts this attempt as a failure of the email and of the client address before the password
   * is checked, so parallel guesses cannot slip past the limit; 429 once either is over its limit.
   */
  begin(email: string, address: string): Promise<void>;
  /** The attempt succeeded: clears the email's failures and takes this attempt off the address. */
  succeeded(email: string, address: string): Promise<void>;
}

type ThrottleConfig = Pick<
  Config,
  'LOGIN_MAX_FAILURES_PER_EMAIL' | 'LOGIN_MAX_FAILURES_PER_ADDRESS' | 'LOGIN_FAILURE_WINDOW_MINUTES'
>;

interface CounterRow {
  key: string;
  failure_count: number;
  retry_after_seconds: number;
}

const emailKey = (email: string) => `email:${email}`;
const addressKey = (address: string) => `ip:${address}`;

/**
 * Failure counters in PostgreSQL (`login_failures`), so every API replica enforces the same limits.
 * Each key counts within a fixed window that starts at its first failure.
 */
export function createLoginThrottle(dataSource: DataSource, config: ThrottleConfig, logger: Logger): LoginThrottle {
  const windowMinutes = config.LOGIN_FAILURE_WINDOW_MINUTES;
  let lastPrunedAt = 0;

  // Expired counters are only clutter: drop them at most once per window, beside the request.
  const pruneExpired = () => {
    if (Date.now() - lastPrunedAt < windowMinutes * 60_000) return;
    lastPrunedAt = Date.now();
    void dataSource
      .query(`DELETE FROM login_failures WHERE window_started_at <= now() - $1::int * interval '1 minute'`, [
        windowMinutes,
      ])
      .catch((error: unknown) => logger.warn({ err: error }, 'could not prune login failures'));
  };

  return {
    async begin(email, address) {
      pruneExpired();
      // One statement for both keys, always in the same order, so concurrent logins cannot deadlock.
      // SET expressions read the row as it was, so an expired window restarts at 1.
      const rows = await dataSource.query<CounterRow[]>(
        `INSERT INTO login_failures AS f (key, window_started_at, failure_count)
           SELECT unnest($1::text[]), now(), 1
         ON CONFLICT (key) DO UPDATE SET
           window_started_at = CASE WHEN f.window_started_at <= now() - $2::int * interval '1 minute'
                                    THEN now() ELSE f.window_started_at END,
           failure_count = CASE WHEN f.window_started_at <= now() - $2::int * interval '1 minute'
                                THEN 1 ELSE f.failure_count + 1 END
         RETURNING key, failure_count,
           ceil(extract(epoch FROM f.window_started_at + $2::int * interval '1 minute' - now()))::int
             AS retry_after_seconds`,
        [[emailKey(email), addressKey(address)], windowMinutes],
      );
      const limitOf = (key: string) =>
        key === emailKey(email) ? config.LOGIN_MAX_FAILURES_PER_EMAIL : config.LOGIN_MAX_FAILURES_PER_ADDRESS;
      const over = rows.filter((row) => row.failure_count > limitOf(row.key));
      if (over.length > 0) {
        const retryAfter = Math.max(1, ...over.map((row) => row.retry_after_seconds));
        throw new TooManyRequestsError(
          `Too many failed login attempts; try again in ${retryAfter} seconds`,
          retryAfter,
        );
      }
    },
    async succeeded(email, address) {
      await dataSource.query(
        `WITH cleared AS (DELETE FROM login_failures WHERE key = $1)
         UPDATE login_failures SET failure_count = failure_count - 1 WHERE key = $2 AND failure_count > 0`,
        [emailKey(email), addressKey(address)],
      );
    },
  };
}
