import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Campaign } from '../../entities';
import { createCampaignRepository } from '../../entities/repositories/campaign.repository';
import { notDialingReason, runningReasons, type NotDialingReason } from './not-dialing-reasons';
import { workflowProgress } from './campaign-progress';

export interface NotDialing {
  reasons: NotDialingReason[];
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
  const campaigns = createCampaignRepository({ dataSource: deps.dataSource });
  if (row.state === 'completed' || row.state === 'cancelled') return null;
  if (row.state === 'draft') {
    return {
      reasons: [notDialingReason('not_started', `Not started: POST /campaign/${row.id}/start starts it`)],
    };
  }
  if (row.state === 'failed') {
    const log = await campaigns.lastLogOf(row.id, ['campaign_failed']);
    return {
      reasons: [notDialingReason('failed', log?.message ?? 'The campaign failed', { details: log?.details ?? {} })],
    };
  }
  if (row.state === 'paused') {
    const log = await campaigns.lastLogOf(row.id, ['circuit_breaker_tripped', 'campaign_paused']);
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
  const turn = await campaigns.callsWaitingForTurn(row.id);
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
