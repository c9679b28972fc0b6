import { proxyActivities } from '@temporalio/workflow';
import type { createCampaignActivities } from '../../activities/campaign.activities';
import type { createCampaignReportActivities } from '../../activities/campaign-report.activities';
import type { createDialRuleActivities } from '../../activities/dial-rules.activities';
import { ACTIVITY_POLICIES } from '../activity-policies';

type CampaignActivities = ReturnType<typeof createCampaignActivities>;

// Every campaign activity writes PostgreSQL idempotently: retried until the database takes it.
export const campaignActivities = proxyActivities<CampaignActivities>(ACTIVITY_POLICIES.databaseWrite);

/** The campaign's activities, scheduled with a summary the Temporal UI shows beside each. */
export const summarizedActivities = (summary: string) =>
  proxyActivities<CampaignActivities>({ ...ACTIVITY_POLICIES.databaseWrite, summary });

// Signals only; retried until Temporal takes them.
export const reportActivities = proxyActivities<ReturnType<typeof createCampaignReportActivities>>(
  ACTIVITY_POLICIES.databaseWrite,
);

// The do-not-call list and frequency caps over a batch: one transaction, retried until it commits.
export const dialRuleActivities = proxyActivities<ReturnType<typeof createDialRuleActivities>>(
  ACTIVITY_POLICIES.databaseWrite,
);
