import type { CampaignLogEntry, CampaignRepository } from '../../entities/repositories/campaign.repository';
import { campaignEventData } from './event-data';
import type { CampaignEventType } from './organization-events';
import type { WebhookDeliveries } from './webhook-deliveries';

export interface CampaignEventInput {
  campaignId: number;
  type: CampaignEventType;
  eventId: string;
  /** The campaign log entry of the transition: why it paused (the breaker's figures), what it counted. */
  log: CampaignLogEntry;
}

/** `campaign.paused` or `campaign.completed` to the organization's subscriptions; answers how many deliveries it has. */
export function createEmitCampaignEvent({
  campaigns,
  deliveries,
}: {
  campaigns: Pick<CampaignRepository, 'getCampaign'>;
  /** The deliveries an event is emitted through, for each emission (they start where it runs). */
  deliveries: () => WebhookDeliveries;
}) {
  return async ({ campaignId, type, eventId, log }: CampaignEventInput): Promise<number> => {
    const campaign = await campaigns.getCampaign(campaignId);
    return (await deliveries().emit(campaign.organizationId, type, campaignEventData(campaign, log), eventId)).length;
  };
}
