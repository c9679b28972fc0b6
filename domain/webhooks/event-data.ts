import type { Campaign } from '../../entities/campaign.entity';
import type { CampaignLogEntry } from '../../entities/repositories/campaign.repository';
import type { Run } from '../../entities/run.entity';
import type { CallEventType } from './organization-events';

/** What a call event tells of its run. */
export type CallEventRun = Pick<
  Run,
  'id' | 'agentId' | 'callType' | 'provider' | 'campaignId' | 'gatheredContext' | 'disposition' | 'callDurationSeconds'
>;

/** What a campaign event tells of its campaign. */
export type CampaignEventCampaign = Pick<
  Campaign,
  'id' | 'name' | 'state' | 'processedRows' | 'totalRows' | 'failedRows'
>;

/** `data` of `call.started` and `call.ended`; the latter adds the call's outcome. */
export function callEventData(run: CallEventRun, type: CallEventType): Record<string, unknown> {
  return {
    workflow_run_id: run.id,
    agent_id: run.agentId,
    direction: run.callType,
    provider: run.provider,
    campaign_id: run.campaignId,
    ...(type === 'call.ended'
      ? {
          call_status: run.gatheredContext.call_status ?? null,
          disposition: run.disposition,
          duration_seconds: run.callDurationSeconds,
        }
      : {}),
  };
}

/**
 * `data` of `campaign.paused` and `campaign.completed`: the campaign's counters and the log entry of
 * the transition (why it paused, what it counted).
 */
export function campaignEventData(campaign: CampaignEventCampaign, log: CampaignLogEntry): Record<string, unknown> {
  return {
    campaign_id: campaign.id,
    name: campaign.name,
    state: campaign.state,
    reason: log.event,
    message: log.message,
    details: log.details ?? {},
    processed_rows: campaign.processedRows,
    total_rows: campaign.totalRows,
    failed_rows: campaign.failedRows,
  };
}

/** `data` of `call_analyzed`. */
export const callAnalyzedData = (runId: number, analysis: Record<string, unknown>): Record<string, unknown> => ({
  workflow_run_id: runId,
  analysis,
});

/** What `call_analyzed` sends of a run's annotations: its tags, and what its analysis found. */
export function analysisOfAnnotations(annotations: Record<string, unknown> | null): Record<string, unknown> {
  const stored = annotations ?? {};
  return { tags: stored.tags ?? [], ...(isObject(stored.analysis) ? stored.analysis : {}) };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
