import type { CampaignProgress, WaitCause } from '../../workflows/definitions';

/**
 * Why a running campaign is not dialing, from its workflow's own state: the answer of
 * `GET /campaign/{id}` and a line of its Temporal UI details. Pure: the campaign workflow uses it too.
 */

/** Dials waiting for the same cause: how many, and when the first is due. */
export interface WaitGroup {
  cause: WaitCause;
  count: number;
  next_due_at: string;
}

export type NotDialingReasonCode =
  | 'not_started'
  | 'paused'
  | 'paused_by_circuit_breaker'
  | 'failed'
  | 'outside_calling_window'
  | 'at_concurrency_limit'
  | 'waiting_for_dial_turn'
  | 'frequency_capped'
  | 'no_telephony_route'
  | 'waiting_for_retries';

export interface NotDialingReason {
  reason: NotDialingReasonCode;
  message: string;
  /** When it ends by itself, if it does. */
  until: string | null;
  /** Contacts or calls concerned. */
  count: number | null;
  /** Figures: the circuit breaker's window, the failure's error. */
  details: Record<string, unknown>;
}

/** What the progress Query adds for this explanation. */
export interface DialingState {
  waiting: WaitGroup[];
  max_concurrency: number;
}

const reason = (
  code: NotDialingReasonCode,
  message: string,
  extra: Partial<Omit<NotDialingReason, 'reason' | 'message'>> = {},
): NotDialingReason => ({ reason: code, message, until: null, count: null, details: {}, ...extra });

const contacts = (count: number): string => (count === 1 ? '1 contact' : `${count} contacts`);

/** The waits of the campaign's queued dials, by cause, earliest due first. */
export function waitGroups(waiting: { cause: WaitCause; dueAt: number }[]): WaitGroup[] {
  const groups = new Map<WaitCause, { count: number; dueAt: number }>();
  for (const { cause, dueAt } of waiting) {
    const group = groups.get(cause);
    groups.set(cause, { count: (group?.count ?? 0) + 1, dueAt: Math.min(group?.dueAt ?? Infinity, dueAt) });
  }
  return [...groups.entries()]
    .sort(([, a], [, b]) => a.dueAt - b.dueAt)
    .map(([cause, { count, dueAt }]) => ({ cause, count, next_due_at: new Date(dueAt).toISOString() }));
}

/**
 * The reasons a running campaign places no new call now: outside its window, every slot in use,
 * contacts held by frequency caps, no usable telephony route, retries not yet due. Empty when it is
 * dialing or has nothing left but calls in flight.
 */
export function runningReasons(progress: CampaignProgress & Partial<DialingState>): NotDialingReason[] {
  const reasons: NotDialingReason[] = [];
  if (progress.next_open_at !== null) {
    reasons.push(
      reason('outside_calling_window', `Outside its calling window until ${progress.next_open_at}`, {
        until: progress.next_open_at,
      }),
    );
  }
  const limit = progress.max_concurrency;
  if (limit !== undefined && progress.in_flight >= limit) {
    reasons.push(
      reason('at_concurrency_limit', `${progress.in_flight} calls in flight, the most it places at once`, {
        count: progress.in_flight,
        details: { max_concurrency: limit },
      }),
    );
  }
  for (const group of progress.waiting ?? []) {
    const extra = { until: group.next_due_at, count: group.count };
    if (group.cause === 'frequency_capped') {
      reasons.push(
        reason(
          'frequency_capped',
          `${contacts(group.count)} held by frequency caps; the first may be dialed at ${group.next_due_at}`,
          extra,
        ),
      );
    } else if (group.cause === 'unroutable') {
      reasons.push(
        reason(
          'no_telephony_route',
          `No usable telephony configuration or agent version for ${contacts(group.count)}; trying again at ${group.next_due_at}`,
          extra,
        ),
      );
    } else if (group.cause === 'window') {
      if (progress.next_open_at === null) {
        reasons.push(
          reason(
            'outside_calling_window',
            `${contacts(group.count)} outside their own calling window until ${group.next_due_at}`,
            extra,
          ),
        );
      }
    } else {
      reasons.push(
        reason(
          'waiting_for_retries',
          `${contacts(group.count)} to retry after ${group.cause}; the first at ${group.next_due_at}`,
          { ...extra, details: { outcome: group.cause } },
        ),
      );
    }
  }
  return reasons;
}

export const notDialingReason = reason;
