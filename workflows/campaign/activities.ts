import { proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { createCampaignActivities } from '../../activities/campaign.activities';
import type { createCampaignReportActivities } from '../../activities/campaign-report.activities';
import type { createDialRuleActivities } from '../../activities/dial-rules.activities';

type CampaignActivities = ReturnType<typeof createCampaignActivities>;

// Every campaign activity writes PostgreSQL idempotently: retried until the database takes it.
const CAMPAIGN_ACTIVITY_OPTIONS: ActivityOptions = {
  // Short: a worker killed mid-activity holds the campaign up for this long before the retry.
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
};

export const campaignActivities = proxyActivities<CampaignActivities>(CAMPAIGN_ACTIVITY_OPTIONS);

/** The campaign's activities, scheduled with a summary the Temporal UI shows beside each. */
export const summarizedActivities = (summary: string) =>
  proxyActivities<CampaignActivities>({ ...CAMPAIGN_ACTIVITY_OPTIONS, summary });

// Signals only; retried until Temporal takes them.
export const reportActivities = proxyActivities<ReturnType<typeof createCampaignReportActivities>>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

// The do-not-call list and frequency caps over a batch: one transaction, retried until it commits.
export const dialRuleActivities = proxyActivities<ReturnType<typeof createDialRuleActivities>>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
