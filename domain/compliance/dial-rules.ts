import type { EntityManager } from 'typeorm';
import type { Config } from '../../platform/config';
import { e164 } from '../campaigns/sources/phone-number';

/**
 * The rules a dial must pass, checked at dial time: the organization's do-not-call list and its
 * frequency caps (attempts per number per rolling 24 hours and 7 days, across every campaign and
 * single call; 0 turns a cap off).
 */
export interface DialRules {
  doNotCall: boolean;
  perDay: number;
  perWeek: number;
}

/** A campaign attempt's outcome when its number was on the do-not-call list: never dialed. */
export const DNC_SKIPPED = 'dnc_skipped';

/** The do-not-call list, always; the frequency caps as configured. */
export const dialRulesFrom = (config: Pick<Config, 'DIAL_CAP_PER_DAY' | 'DIAL_CAP_PER_WEEK'>): DialRules => ({
  doNotCall: true,
  perDay: config.DIAL_CAP_PER_DAY,
  perWeek: config.DIAL_CAP_PER_WEEK,
});

export interface DialRequest {
  organizationId: number;
  /** Canonical E.164, as runs, contacts and the do-not-call list store it. */
  phoneNumber: string;
  /** What makes one dial one claim: the provider idempotency key (`<workflow id>:<attempt>`). */
  dialKey: string;
}

export type DialVerdict =
  | { verdict: 'dial' }
  | { verdict: 'do_not_call' }
  /** `allowedAt`: epoch ms at which the caps allow the number again. */
  | { verdict: 'capped'; allowedAt: number; perDay: number; perWeek: number };

const DAY_MS = 24 * 60 * 60 * 1000;
const WEEK_MS = 7 * DAY_MS;

/**
 * Decides one dial and, when it may go ahead and a cap is set, counts it. Run inside a
 * transaction: a transaction-scoped advisory lock on the organization and number makes the count
 * and the claim one step, so two campaigns dialing the same number at once cannot both pass a cap.
 * A dial key already claimed (a retried check, or a campaign call checked by its campaign first)
 * passes the caps without counting twice; the do-not-call list is read every time.
 */
export async function claimDial(manager: EntityManager, dial: DialRequest, rules: DialRules): Promise<DialVerdict> {
  const { organizationId, dialKey } = dial;
  // Every number is stored canonical; one written otherwise (by an older process) is compared canonical too.
  const phoneNumber = e164(dial.phoneNumber) ?? dial.phoneNumber;
  if (rules.doNotCall) {
    const listed = await manager.query<unknown[]>(
      `SELECT 1 FROM do_not_call_numbers WHERE organization_id = $1 AND phone_number = $2`,
      [organizationId, phoneNumber],
    );
    if (listed.length > 0) return { verdict: 'do_not_call' };
  }
  if (rules.perDay <= 0 && rules.perWeek <= 0) return { verdict: 'dial' };

  await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`dial:${organizationId}:${phoneNumber}`]);
  // One statement: claims older than the longest window go, and the recent ones come back newest first.
  const [state] = await manager.query<{ now_ms: string; claimed: boolean; recent: string[] | null }[]>(
    `WITH pruned AS (
       DELETE FROM dial_claims WHERE organization_id = $1 AND phone_number = $2 AND claimed_at <= now() - interval '7 days')
     SELECT (extract(epoch FROM now()) * 1000)::bigint AS now_ms,
            EXISTS (SELECT 1 FROM dial_claims WHERE dial_key = $3) AS claimed,
            (SELECT array_agg(ms ORDER BY ms DESC) FROM (
               SELECT (extract(epoch FROM claimed_at) * 1000)::bigint AS ms FROM dial_claims
                WHERE organization_id = $1 AND phone_number = $2 AND claimed_at > now() - interval '7 days'
                ORDER BY claimed_at DESC LIMIT $4) latest) AS recent`,
    [organizationId, phoneNumber, dialKey, Math.max(rules.perDay, rules.perWeek)],
  );
  if (!state) throw new Error('PostgreSQL answered no row');
  if (state.claimed) return { verdict: 'dial' };
  const now = Number(state.now_ms);
  const allowedAt = capOpensAt((state.recent ?? []).map(Number), now, rules);
  if (allowedAt !== null) return { verdict: 'capped', allowedAt, perDay: rules.perDay, perWeek: rules.perWeek };
  await manager.query(
    `INSERT INTO dial_claims (organization_id, phone_number, dial_key) VALUES ($1, $2, $3)
     ON CONFLICT (dial_key) DO NOTHING`,
    [organizationId, phoneNumber, dialKey],
  );
  return { verdict: 'dial' };
}

/**
 * When the caps allow one more dial, given the recent claims (epoch ms, newest first), or null
 * when they allow it now: a window holding `cap` claims frees up once its `cap`-th newest leaves it.
 */
export function capOpensAt(recentNewestFirst: number[], now: number, rules: DialRules): number | null {
  let opensAt: number | null = null;
  for (const [cap, windowMs] of [
    [rules.perDay, DAY_MS],
    [rules.perWeek, WEEK_MS],
  ] as const) {
    if (cap <= 0) continue;
    const inWindow = recentNewestFirst.filter((at) => at > now - windowMs);
    const oldestCounted = inWindow[cap - 1];
    if (oldestCounted !== undefined) opensAt = Math.max(opensAt ?? 0, oldestCounted + windowMs);
  }
  return opensAt;
}
