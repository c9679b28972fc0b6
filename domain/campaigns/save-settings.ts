import type { CampaignLogEntry, CampaignRepository } from '../../entities/repositories/campaign.repository';
import { settingsColumns } from './campaign-settings';
import type { CampaignSettings } from './settings';

/**
 * Whether a change re-arms the failover: it names a fallback configuration other than the current
 * one, or takes it away.
 */
export const rearmsFailover = (change: Partial<CampaignSettings>, currentFallbackId: number | null): boolean =>
  change.fallback !== undefined && (change.fallback?.telephony_configuration_id ?? null) !== currentFallbackId;

/** The `config_updated` log entry: the names of the settings changed, and their new values. */
export const configUpdatedLog = (change: Partial<CampaignSettings>): CampaignLogEntry => ({
  level: 'info',
  event: 'config_updated',
  message: `Campaign settings updated: ${Object.keys(change).join(', ')}`,
  details: { ...change },
});

/**
 * Stores settings the workflow accepted while paused and logs `config_updated`. A new fallback
 * configuration (or none) re-arms the failover, as the workflow does: `failed_over_at` is cleared.
 */
export function createSaveSettings({ campaigns }: { campaigns: CampaignRepository }) {
  return async ({ campaignId, change }: { campaignId: number; change: Partial<CampaignSettings> }): Promise<void> => {
    await campaigns.transaction(async (tx) => {
      const current = await tx.getCampaign(campaignId);
      const rearmed = rearmsFailover(change, current.fallbackTelephonyConfigurationId);
      await tx.updateSettings(campaignId, { ...settingsColumns(change), ...(rearmed ? { failedOverAt: null } : {}) });
      await tx.appendLog(campaignId, configUpdatedLog(change));
    });
  };
}
