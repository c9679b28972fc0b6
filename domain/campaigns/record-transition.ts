import type { CampaignLogEntry, CampaignRepository } from '../../entities/repositories/campaign.repository';
import { isTerminalCampaignState, type CampaignState } from './settings';

/** A state change the campaign workflow decided, with its log entry. */
export interface CampaignTransition {
  campaignId: number;
  from: CampaignState[];
  to: CampaignState;
  log: CampaignLogEntry;
}

/**
 * Moves the campaign from one of `from` to `to` and logs it; terminal states set `completed_at`.
 * A campaign already in `to` (a retry) is left as it is, without a second log entry.
 */
export function createRecordTransition({ campaigns }: { campaigns: CampaignRepository }) {
  return async ({ campaignId, from, to, log }: CampaignTransition): Promise<void> => {
    await campaigns.transaction(async (tx) => {
      const moved = await tx.moveState(campaignId, from, to, { completed: isTerminalCampaignState(to) });
      if (moved) await tx.appendLog(campaignId, log);
    });
  };
}
