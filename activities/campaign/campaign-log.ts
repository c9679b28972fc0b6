import type { EntityManager } from 'typeorm';
import { CampaignLog } from '../../entities';

/** A `logs[]` entry of a campaign (DECISIONS "Campaigns" lists the events). */
export interface CampaignLogEntry {
  level: 'info' | 'warning' | 'error';
  event: string;
  message: string;
  details?: Record<string, unknown>;
}

export async function appendCampaignLog(
  manager: EntityManager,
  campaignId: number,
  entry: CampaignLogEntry,
): Promise<void> {
  await manager.save(manager.create(CampaignLog, { campaignId, ...entry, details: entry.details ?? {} }));
}
