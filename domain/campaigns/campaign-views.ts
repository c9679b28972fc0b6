import type { DataSource } from 'typeorm';
import type { Campaign } from '../../entities';
import {
  createCampaignRepository,
  type CampaignLogRow,
  type CampaignNames,
} from '../../entities/repositories/campaign.repository';
import type { Actor } from '../actor';
import { NotFoundError } from '../errors';
import type { CampaignListRequest, CampaignView } from './types';
import { settingsOf } from './campaign-settings';

export const CAMPAIGN_NOT_FOUND = 'Campaign not found';

type Names = Omit<CampaignNames, 'id'>;

/** The configuration a campaign dials through now: its fallback once it failed over. */
export const activeConfigurationId = (
  row: Pick<Campaign, 'telephonyConfigurationId' | 'fallbackTelephonyConfigurationId' | 'failedOverAt'>,
): number | null =>
  row.failedOverAt && row.fallbackTelephonyConfigurationId
    ? row.fallbackTelephonyConfigurationId
    : row.telephonyConfigurationId;

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

function campaignView(row: Campaign, names: Names, logs: CampaignLogRow[]): CampaignView {
  const settings = settingsOf(row);
  return {
    id: row.id,
    name: row.name,
    workflow_id: row.agentId,
    workflow_name: names.workflow_name,
    state: row.state,
    source_type: row.sourceType,
    source_id: row.sourceId,
    total_rows: row.totalRows,
    processed_rows: row.processedRows,
    failed_rows: row.failedRows,
    created_at: row.createdAt.toISOString(),
    started_at: iso(row.startedAt),
    completed_at: iso(row.completedAt),
    retry_config: settings.retry_config,
    max_concurrency: row.maxConcurrency,
    schedule_config: settings.schedule_config,
    circuit_breaker: settings.circuit_breaker,
    executed_count: row.executedCount,
    total_queued_count: row.totalQueuedCount,
    dnc_skipped: row.dncSkippedCount,
    frequency_capped: row.frequencyCappedCount,
    transferred: row.transferredCount,
    parent_campaign_id: row.parentCampaignId,
    redialed_campaign_id: row.redialedCampaignId,
    telephony_configuration_id: row.telephonyConfigurationId,
    telephony_configuration_name: names.telephony_configuration_name,
    fallback_telephony_configuration_id: row.fallbackTelephonyConfigurationId,
    fallback_caller_number: row.fallbackCallerNumber,
    active_telephony_configuration_id: activeConfigurationId(row),
    failed_over_at: iso(row.failedOverAt),
    voicemail_action: row.voicemailAction,
    logs: logs.map((log) => ({
      ts: log.created_at.toISOString(),
      level: log.level,
      event: log.event,
      message: log.message,
      details: log.details,
    })),
  };
}

/** Campaign rows as the API answers them: with the agent's and configuration's names and the logs, oldest first. */
async function campaignViews(dataSource: DataSource, rows: Campaign[]): Promise<CampaignView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const campaigns = createCampaignRepository({ dataSource });
  const [names, logs] = await Promise.all([campaigns.namesOf(ids), campaigns.logsOf(ids)]);
  const namesById = new Map(names.map((row) => [row.id, row]));
  const logsById = new Map<number, CampaignLogRow[]>();
  for (const log of logs) logsById.set(log.campaign_id, [...(logsById.get(log.campaign_id) ?? []), log]);
  return rows.map((row) =>
    campaignView(
      row,
      namesById.get(row.id) ?? { workflow_name: '', telephony_configuration_name: null },
      logsById.get(row.id) ?? [],
    ),
  );
}

export async function campaignViewOf(dataSource: DataSource, row: Campaign): Promise<CampaignView> {
  const [view] = await campaignViews(dataSource, [row]);
  if (!view) throw new Error(`campaign ${row.id} has no view`);
  return view;
}

/** One of the caller's campaigns; another organization's answers like a missing one (404). */
export async function findCampaign(dataSource: DataSource, caller: Actor, id: number): Promise<Campaign> {
  const row = await createCampaignRepository({ dataSource }).findOwnedCampaign(caller.organizationId, id);
  if (!row) throw new NotFoundError(CAMPAIGN_NOT_FOUND);
  return row;
}

/** The caller's campaigns, newest first, optionally in one state. */
export async function campaignPage(dataSource: DataSource, caller: Actor, query: CampaignListRequest) {
  const [rows, total] = await createCampaignRepository({ dataSource }).campaignPageOf(caller.organizationId, {
    state: query.state,
    skip: (query.page - 1) * query.limit,
    take: query.limit,
  });
  return {
    campaigns: await campaignViews(dataSource, rows),
    total_count: total,
    page: query.page,
    limit: query.limit,
    total_pages: Math.ceil(total / query.limit),
  };
}
