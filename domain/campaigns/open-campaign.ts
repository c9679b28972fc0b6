import type { CampaignCounters, CampaignRepository } from '../../entities/repositories/campaign.repository';
import type { Campaign } from '../../entities/campaign.entity';
import type { TerminalCallStatus } from '../../workflows/definitions';
import { settingsOf } from './campaign-settings';
import type { CampaignSettings, CampaignState } from './settings';

export interface OpenedCampaign {
  state: CampaignState;
  settings: CampaignSettings;
  counters: CampaignCounters;
  /** Final outcomes so far, by call status. */
  outcomes: Partial<Record<TerminalCallStatus, number>>;
  /** Whether the campaign names a fallback configuration, and whether it dials through it already. */
  failover: { available: boolean; active: boolean };
}

/** Why a campaign cannot be opened at all; retrying cannot change it. `type` names the failure. */
export class CampaignOpenError extends Error {
  constructor(
    message: string,
    readonly type: 'CampaignNotFound' | 'CampaignSourceDeleted',
  ) {
    super(message);
    this.name = 'CampaignOpenError';
  }
}

/** Whether the campaign names a fallback configuration, and whether it already dials through it. */
export const failoverOf = (
  row: Pick<Campaign, 'fallbackTelephonyConfigurationId' | 'failedOverAt'>,
): OpenedCampaign['failover'] => ({
  available: row.fallbackTelephonyConfigurationId !== null,
  active: row.fallbackTelephonyConfigurationId !== null && row.failedOverAt !== null,
});

/**
 * The campaign's settings, state and counters for a (new or continued) workflow run. The first
 * call moves a draft to `running`, sets `started_at` and `total_rows`, and logs `campaign_started`.
 * A campaign that does not exist, or a draft whose contact list is gone, is a `CampaignOpenError`.
 */
export function createOpenCampaign({ campaigns }: { campaigns: CampaignRepository }) {
  return async (campaignId: number): Promise<OpenedCampaign> => {
    const row = await campaigns.transaction(async (tx) => {
      const campaign = await tx.lockCampaign(campaignId);
      if (!campaign) throw new CampaignOpenError(`Campaign ${campaignId} does not exist`, 'CampaignNotFound');
      if (campaign.state !== 'draft') return campaign;
      // A list in use by a draft cannot be deleted; this guards a row changed outside the API.
      if (campaign.sourceId === null)
        throw new CampaignOpenError(`Campaign ${campaignId} has no contact list`, 'CampaignSourceDeleted');
      const totalRows = await tx.countContacts(campaign.sourceId);
      await tx.markStarted(campaignId, totalRows);
      await tx.appendLog(campaignId, {
        level: 'info',
        event: 'campaign_started',
        message: `Campaign started with ${totalRows} contacts`,
        details: { total_rows: totalRows },
      });
      return tx.getCampaign(campaignId);
    });
    return {
      state: row.state,
      settings: settingsOf(row),
      counters: campaigns.countersOf(row),
      outcomes: await campaigns.finalOutcomes(campaignId),
      failover: failoverOf(row),
    };
  };
}
