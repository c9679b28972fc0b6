import type { DataSource } from 'typeorm';
import type { Logger } from '../../platform/logger';
import { TooManyRequestsError } from '../errors';

export interface BackoffRule {
  /** Attempts counted before any wait. */
  free: number;
  /** The wait after the first attempt past the free ones, in seconds; each further attempt doubles it. */
  firstBackoffSeconds: number;
  /** Longest wait imposed after one counted attempt, in seconds. */
  maxBackoffSeconds: number;
  /** A key with nothing counted for this long starts again from zero. */
  forgetAfterMinutes: number;
}

export interface BackoffThrottle {
  /** 429 while any of `keys` must wait. */
  ensureAllowed(keys: string[]): Promise<void>;
  /**
   * Counts an attempt of `key`, or answers 429 without counting it while the key must wait. One
   * statement: parallel attempts queue on the key's row, so none slips past the rule.
   */
  countIfAllowed(key: string): Promise<void>;
  /** Counts an attempt of `key` whatever its state. */
  count(key: string): Promise<void>;
  /**
   * Takes back one attempt counted for `key` (one that turned out not to be a failure): the key no
   * longer waits once its count is back within the free attempts; a longer wait stays.
   */
  uncount(key: string): Promise<void>;
  /** Forgets `key`. */
  clear(key: string): Promise<void>;
}

// The wait after the `n`th counted attempt ($2 free, $3 cap, $5 first wait): none while free, then
// the first wait, doubling up to the cap.
const blockedUntil = (n: string) =>
  `CASE WHEN ${n} < $2::int THEN NULL
        ELSE now() + least($3::int, $5::int * power(2, least(${n} - $2::int, 30)))::int * interval '1 second' END`;
const expired = (alias: string) => `${alias}.last_counted_at <= now() - $4::int * interval '1 minute'`;
const newCount = `CASE WHEN ${expired('t')} THEN 1 ELSE t.failure_count + 1 END`;

const UPSERT = `INSERT INTO auth_throttle AS t (key, last_counted_at, failure_count, blocked_until)
                VALUES ($1, now(), 1, ${blockedUntil('1')})
                ON CONFLICT (key) DO UPDATE SET
                  failure_count = ${newCount},
                  last_counted_at = now(),
                  blocked_until = ${blockedUntil(newCount)}`;

/**
 * Attempt counters with progressive backoff, in PostgreSQL (`auth_throttle`) so every API replica
 * enforces the same waits. A key waits only after `free` counted attempts, and never longer than
 * the cap after its last one: whoever shares a key with someone failing is held up briefly, never
 * locked out.
 */
export function createBackoffThrottle(
  dataSource: DataSource,
  rule: BackoffRule,
  tooMany: (retryAfterSeconds: number) => string,
  logger: Logger,
): BackoffThrottle {
  const ruleParameters = [rule.free, rule.maxBackoffSeconds, rule.forgetAfterMinutes, rule.firstBackoffSeconds];
  let lastPrunedAt = 0;

  // Forgotten keys are only clutter: drop them at most once per period, beside the request.
  const pruneForgotten = () => {
    if (Date.now() - lastPrunedAt < rule.forgetAfterMinutes * 60_000) return;
    lastPrunedAt = Date.now();
    void dataSource
      .query(
        `DELETE FROM auth_throttle
          WHERE last_counted_at <= now() - $1::int * interval '1 minute'
            AND (blocked_until IS NULL OR blocked_until <= now())`,
        [rule.forgetAfterMinutes],
      )
      .catch((error: unknown) => logger.warn({ err: error }, 'could not prune throttle counters'));
  };

  const refuseWhileBlocked = async (keys: string[]) => {
    const [row] = await dataSource.query<{ wait: number | null }[]>(
      `SELECT ceil(max(extract(epoch FROM blocked_until - now())))::int AS wait
         FROM auth_throttle WHERE key = ANY($1::text[]) AND blocked_until > now()`,
      [keys],
    );
    if (row?.wait != null) throw new TooManyRequestsError(tooMany(Math.max(1, row.wait)), row.wait);
  };

  return {
    ensureAllowed: refuseWhileBlocked,
    async countIfAllowed(key) {
      pruneForgotten();
      const counted = await dataSource.query<unknown[]>(
        `${UPSERT} WHERE t.blocked_until IS NULL OR t.blocked_until <= now() RETURNING 1`,
        [key, ...ruleParameters],
      );
      if (counted.length > 0) return;
      await refuseWhileBlocked([key]);
      // The wait ended between the two statements: the attempt may go ahead, counted.
      await dataSource.query(UPSERT, [key, ...ruleParameters]);
    },
    async count(key) {
      pruneForgotten();
      await dataSource.query(UPSERT, [key, ...ruleParameters]);
    },
    async uncount(key) {
      await dataSource.query(
        `UPDATE auth_throttle
            SET failure_count = greatest(failure_count - 1, 0),
                blocked_until = CASE WHEN failure_count - 1 < $2::int THEN NULL ELSE blocked_until END
          WHERE key = $1`,
        [key, rule.free],
      );
    },
    async clear(key) {
      await dataSource.query(`DELETE FROM auth_throttle WHERE key = $1`, [key]);
    },
  };
}
