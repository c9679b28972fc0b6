import { ApplicationFailure } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import type { CallSettings } from '../domain/calls/call-settings';
import { closeQueuedRetries, type ClosedRetries } from '../domain/campaigns/close-retries';
import { failOverCampaign as failOver, type BreakerFigures } from '../domain/campaigns/fail-over';
import { CampaignOpenError, openCampaign as open, type OpenedCampaign } from '../domain/campaigns/open-campaign';
import {
  prepareCampaignAttempts as prepareAttempts,
  type AttemptBatch,
  type AttemptRef,
  type PreparedAttempt,
  type PreparedAttempts,
} from '../domain/campaigns/prepare-attempts';
import { recordAttemptOutcomes, type AttemptOutcome } from '../domain/campaigns/record-outcomes';
import { recordTransition, type CampaignTransition } from '../domain/campaigns/record-transition';
import { campaignRunOutcome as runOutcome } from '../domain/campaigns/run-outcome';
import { saveCampaignSettings as saveSettings } from '../domain/campaigns/save-settings';
import type { CampaignSettings } from '../domain/campaigns/settings';
import {
  createCampaignRepository,
  type CampaignCounters,
  type CampaignLogEntry,
} from '../entities/repositories/campaign.repository';
import type { Secrets } from '../telephony/secrets';
import type { TerminalCallStatus } from '../workflows/definitions';
import { countCampaignDials } from './call-metrics';

export type {
  AttemptOutcome,
  AttemptRef,
  CampaignCounters,
  CampaignLogEntry,
  CampaignTransition,
  ClosedRetries,
  OpenedCampaign,
  PreparedAttempt,
};

export interface CampaignActivityDeps {
  dataSource: DataSource;
  secrets: Secrets;
  settings: Pick<CallSettings, 'telephonyApiBaseUrl'>;
}

/** A contact as the workflow sees it: no phone number or context, only what dispatch needs. */
export interface ContactRef {
  contactId: string;
  timezone: string | null;
}

/**
 * The campaign workflow's only way to the campaign row: state, counters, attempts and logs, through
 * the use cases in domain/campaigns/ over the campaign repository. Every write is idempotent
 * (guarded by the attempt rows' and the state's current values), so an activity retried after a
 * worker crash never counts twice.
 */
export function createCampaignActivities({ dataSource, secrets, settings }: CampaignActivityDeps) {
  const campaigns = createCampaignRepository({ dataSource });
  const preparation = { campaigns, secrets, telephony: { apiBaseUrl: settings.telephonyApiBaseUrl, dataSource } };

  return {
    /** `openCampaign` in domain/campaigns/open-campaign.ts; a campaign that cannot open fails the workflow at once. */
    async openCampaign({ campaignId }: { campaignId: number }): Promise<OpenedCampaign> {
      try {
        return await open(campaigns, campaignId);
      } catch (error) {
        // Retrying cannot make a deleted campaign or contact list appear.
        if (error instanceof CampaignOpenError) throw ApplicationFailure.nonRetryable(error.message, error.type);
        throw error;
      }
    },

    /** `failOverCampaign` in domain/campaigns/fail-over.ts. */
    async failOverCampaign(input: { campaignId: number; figures: BreakerFigures }): Promise<void> {
      await failOver(campaigns, input);
    },

    /** The next page of the campaign's contacts after `after` (a contact id), in id order. */
    async fetchCampaignContacts({
      campaignId,
      after,
      limit,
    }: {
      campaignId: number;
      after: string;
      limit: number;
    }): Promise<ContactRef[]> {
      return campaigns.contactsAfter(campaignId, after, limit);
    },

    /** `prepareCampaignAttempts` in domain/campaigns/prepare-attempts.ts, counting the dials it created. */
    async prepareCampaignAttempts(batch: AttemptBatch): Promise<PreparedAttempts> {
      const { dialed, ...prepared } = await prepareAttempts(preparation, batch);
      countCampaignDials(dialed);
      return prepared;
    },

    /** `recordAttemptOutcomes` in domain/campaigns/record-outcomes.ts. */
    recordCampaignOutcomes(input: { campaignId: number; outcomes: AttemptOutcome[] }): Promise<CampaignCounters> {
      return recordAttemptOutcomes(campaigns, input);
    },

    /** `closeQueuedRetries` in domain/campaigns/close-retries.ts: when a campaign is cancelled or fails. */
    closeCampaignRetries({ campaignId }: { campaignId: number }): Promise<ClosedRetries> {
      return closeQueuedRetries(campaigns, campaignId);
    },

    /** `recordTransition` in domain/campaigns/record-transition.ts. */
    async transitionCampaign(transition: CampaignTransition): Promise<void> {
      await recordTransition(campaigns, transition);
    },

    /** Appends a log entry that is not a state change (`waiting_for_schedule_window`). */
    async logCampaignEvent({ campaignId, entry }: { campaignId: number; entry: CampaignLogEntry }): Promise<void> {
      await campaigns.appendLog(campaignId, entry);
    },

    /** `saveCampaignSettings` in domain/campaigns/save-settings.ts: settings accepted while paused. */
    async saveCampaignSettings(input: { campaignId: number; change: Partial<CampaignSettings> }): Promise<void> {
      await saveSettings(campaigns, input);
    },

    /** The terminal call status of a campaign call's run, or null while the call is not over. */
    campaignRunOutcome({ runId }: { runId: number }): Promise<TerminalCallStatus | null> {
      return runOutcome(campaigns, runId);
    },
  };
}
