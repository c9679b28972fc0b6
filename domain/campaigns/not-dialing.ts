import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Campaign } from '../../entities';
import { notDialingReason, runningReasons, type NotDialingReason } from './not-dialing-reasons';
import { workflowProgress } from './campaign-progress';

export interface NotDialing {
  reasons: NotDialingReason[];
}

interface LogRow {
  event: string;
  message: string;
  details: Record<string, unknown> | null;
  created_at: Date;
}

/** The campaign's latest log entry among `events`. */
async function lastLog(dataSource: DataSource, campaignId: number, events: string[]): Promise<LogRow | undefined> {
  const [row] = await dataSource.query<LogRow[]>(
    `SELECT event, message, details, created_at FROM campaign_logs
      WHERE campaign_id = $1 AND event = ANY ($2) ORDER BY id DESC LIMIT 1`,
    [campaignId, events],
  );
  return row;
}

/** Calls started but not yet placed with the provider: they wait for the configuration's dial rate. */
async function waitingForTurn(dataSource: DataSource, campaignId: number): Promise<number> {
  const [row] = await dataSource.query<{ count: number }[]>(
    `SELECT count(*)::int AS count
       FROM campaign_attempts a JOIN runs r ON r.id = a.run_id
      WHERE a.campaign_id = $1 AND a.status = 'dialing' AND r.provider_call_id IS NULL AND NOT r.is_completed`,
    [campaignId],
  );
  return row?.count ?? 0;
}

/**
 * Why the campaign places no new call now, or null when it is dialing (or has finished): a draft
 * not started, paused by a person or by its circuit breaker (with the figures it tripped on),
 * failed (and why), and for a running campaign what its workflow waits for — its calling window,
 * its concurrency limit, the dial rate, frequency caps, a telephony route, retries not yet due.
 */
export async function notDialing(
  deps: { dataSource: DataSource; temporal: Client },
  row: Campaign,
): Promise<NotDialing | null> {
  const { dataSource } = deps;
  if (row.state === 'completed' || row.state === 'cancelled') return null;
  if (row.state === 'draft') {
    return {
      reasons: [notDialingReason('not_started', `Not started: POST /campaign/${row.id}/start starts it`)],
    };
  }
  if (row.state === 'failed') {
    const log = await lastLog(dataSource, row.id, ['campaign_failed']);
    return {
      reasons: [notDialingReason('failed', log?.message ?? 'The campaign failed', { details: log?.details ?? {} })],
    };
  }
  if (row.state === 'paused') {
    const log = await lastLog(dataSource, row.id, ['circuit_breaker_tripped', 'campaign_paused']);
    if (log?.event === 'circuit_breaker_tripped') {
      return {
        reasons: [
          notDialingReason('paused_by_circuit_breaker', `${log.message}; resume it once the cause is fixed`, {
            details: log.details ?? {},
          }),
        ],
      };
    }
    return {
      reasons: [
        notDialingReason('paused', `Paused${log ? ` at ${log.created_at.toISOString()}` : ''}; resume it to dial`),
      ],
    };
  }
  const live = await workflowProgress(deps.temporal, row.id);
  const reasons = live ? runningReasons(live) : [];
  const turn = await waitingForTurn(dataSource, row.id);
  if (turn > 0) {
    reasons.push(
      notDialingReason(
        'waiting_for_dial_turn',
        `${turn === 1 ? '1 call waits' : `${turn} calls wait`} for a turn at the telephony configuration's dial rate`,
        { count: turn },
      ),
    );
  }
  return reasons.length > 0 ? { reasons } : null;
}
