import type { EntityManager } from 'typeorm';
import { dialRuleStatements } from '../../entities/repositories/dial-rule.repository';
import { doNotCallStatements } from '../../entities/repositories/do-not-call.repository';
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
  if (rules.doNotCall && (await doNotCallStatements(manager).isListed(organizationId, phoneNumber))) {
    return { verdict: 'do_not_call' };
  }
  if (rules.perDay <= 0 && rules.perWeek <= 0) return { verdict: 'dial' };

  const claims = dialRuleStatements(manager);
  await claims.lockNumber(organizationId, phoneNumber);
  const state = await claims.recentClaims(organizationId, phoneNumber, dialKey, Math.max(rules.perDay, rules.perWeek));
  if (state.claimed) return { verdict: 'dial' };
  const now = Number(state.now_ms);
  const allowedAt = capOpensAt((state.recent ?? []).map(Number), now, rules);
  if (allowedAt !== null) return { verdict: 'capped', allowedAt, perDay: rules.perDay, perWeek: rules.perWeek };
  await claims.claim(organizationId, phoneNumber, dialKey);
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
