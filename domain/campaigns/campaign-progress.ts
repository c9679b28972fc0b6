import { QueryNotRegisteredError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Campaign } from '../../entities';
import { createCampaignRepository } from '../../entities/repositories/campaign.repository';
import { campaignProgressQuery, campaignWorkflowId, type CampaignProgress } from '../../workflows/definitions';
import type { Actor } from '../actor';
import type { CampaignProgressView } from './types';
import { activeConfigurationId, findCampaign } from './campaign-views';
import { DNC_SKIPPED } from '../compliance/dial-rules';
import { withinDeadline } from './campaign-workflow';

const percentage = (done: number, total: number): number => (total > 0 ? Math.round((done / total) * 1000) / 10 : 0);

/** The running workflow's own figures; null when it has no workflow to ask (it ended, or never ran). */
export async function workflowProgress(temporal: Client, campaignId: number): Promise<CampaignProgress | null> {
  try {
    const handle = temporal.workflow.getHandle(campaignWorkflowId(campaignId));
    return await withinDeadline(temporal, () => handle.query(campaignProgressQuery));
  } catch (error) {
    if (error instanceof WorkflowNotFoundError || error instanceof QueryNotRegisteredError) return null;
    throw error;
  }
}

/** Figures from the stored counters and the contacts' last finished attempts. */
async function storedProgress(dataSource: DataSource, row: Campaign) {
  const campaigns = createCampaignRepository({ dataSource });
  const [outcomes, pending] = await Promise.all([
    campaigns.lastOutcomeCounts(row.id, DNC_SKIPPED),
    campaigns.pendingAttemptCounts(row.id),
  ]);
  return {
    outcomes: Object.fromEntries(outcomes.map(({ outcome, contacts }) => [outcome ?? 'unknown', contacts])),
    in_flight: pending?.in_flight ?? 0,
    pending_retries: pending?.queued ?? 0,
  };
}

/**
 * A campaign's progress: asked of its workflow while it runs or is paused (the figures it acts
 * on), computed from PostgreSQL otherwise. A Temporal outage is a 503, never a guess.
 */
export async function campaignProgress(
  deps: { dataSource: DataSource; temporal: Client },
  caller: Actor,
  campaignId: number,
): Promise<CampaignProgressView> {
  const row = await findCampaign(deps.dataSource, caller, campaignId);
  const times = {
    active_telephony_configuration_id: activeConfigurationId(row),
    started_at: row.startedAt?.toISOString() ?? null,
    completed_at: row.completedAt?.toISOString() ?? null,
  };
  const live = row.state === 'running' || row.state === 'paused' ? await workflowProgress(deps.temporal, row.id) : null;
  if (live) {
    const outcomes: Record<string, number> = {};
    for (const [status, count] of Object.entries(live.outcomes)) if (count !== undefined) outcomes[status] = count;
    return {
      campaign_id: row.id,
      state: live.state,
      total_rows: live.total_rows,
      processed_rows: live.processed_rows,
      failed_rows: live.failed_rows,
      executed_count: live.executed_count,
      total_queued_count: live.total_queued_count,
      dnc_skipped: live.dnc_skipped,
      frequency_capped: live.frequency_capped,
      transferred: live.transferred,
      in_flight: live.in_flight,
      pending_retries: live.pending_retries,
      outcomes,
      progress_percentage: percentage(live.processed_rows, live.total_rows),
      next_open_at: live.next_open_at,
      ...times,
      source: 'workflow',
    };
  }
  const stored = await storedProgress(deps.dataSource, row);
  const total = row.totalRows ?? 0;
  return {
    campaign_id: row.id,
    state: row.state,
    total_rows: total,
    processed_rows: row.processedRows,
    failed_rows: row.failedRows,
    executed_count: row.executedCount,
    total_queued_count: row.totalQueuedCount,
    dnc_skipped: row.dncSkippedCount,
    frequency_capped: row.frequencyCappedCount,
    transferred: row.transferredCount,
    ...stored,
    progress_percentage: row.state === 'completed' && total === 0 ? 100 : percentage(row.processedRows, total),
    next_open_at: null,
    ...times,
    source: 'database',
  };
}
