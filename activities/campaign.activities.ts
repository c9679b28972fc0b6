import { ApplicationFailure } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import type { CallSettings } from '../domain/calls/call-settings';
import { createCloseRetries, type ClosedRetries } from '../domain/campaigns/close-retries';
import { createFailOver, type BreakerFigures } from '../domain/campaigns/fail-over';
import { CampaignOpenError, createOpenCampaign, type OpenedCampaign } from '../domain/campaigns/open-campaign';
import {
  prepareCampaignAttempts as prepareAttempts,
  type AttemptBatch,
  type AttemptRef,
  type PreparedAttempt,
  type PreparedAttempts,
} from '../domain/campaigns/prepare-attempts';
import { createRecordOutcomes, type AttemptOutcome } from '../domain/campaigns/record-outcomes';
import { createRecordTransition, type CampaignTransition } from '../domain/campaigns/record-transition';
import { createRunOutcome } from '../domain/campaigns/run-outcome';
import { createSaveSettings } from '../domain/campaigns/save-settings';
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
  const open = createOpenCampaign({ campaigns });
  const failOver = createFailOver({ campaigns });
  const recordOutcomes = createRecordOutcomes({ campaigns });
  const closeRetries = createCloseRetries({ campaigns });
  const recordTransition = createRecordTransition({ campaigns });
  const saveSettings = createSaveSettings({ campaigns });
  const runOutcome = createRunOutcome({ campaigns });

  return {
    /**
     * The campaign's state, settings and counters for a workflow run; a draft starts
     * (domain/campaigns/open-campaign.ts). A campaign that cannot open fails the workflow at once.
     */
    async openCampaign({ campaignId }: { campaignId: number }): Promise<OpenedCampaign> {
      try {
        return await open(campaignId);
      } catch (error) {
        // Retrying cannot make a deleted campaign or contact list appear.
        if (error instanceof CampaignOpenError) throw ApplicationFailure.nonRetryable(error.message, error.type);
        throw error;
      }
    },

    /** Switches to the fallback configuration, once (domain/campaigns/fail-over.ts). */
    async failOverCampaign(input: { campaignId: number; figures: BreakerFigures }): Promise<void> {
      await failOver(input);
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

    /** Records a batch of attempt outcomes, each once (domain/campaigns/record-outcomes.ts). */
    recordCampaignOutcomes(input: { campaignId: number; outcomes: AttemptOutcome[] }): Promise<CampaignCounters> {
      return recordOutcomes(input);
    },

    /** Closes the queued retries of a campaign cancelled or failed (domain/campaigns/close-retries.ts). */
    closeCampaignRetries({ campaignId }: { campaignId: number }): Promise<ClosedRetries> {
      return closeRetries(campaignId);
    },

    /** Moves the campaign's state and logs it, once (domain/campaigns/record-transition.ts). */
    async transitionCampaign(transition: CampaignTransition): Promise<void> {
      await recordTransition(transition);
    },

    /** Appends a log entry that is not a state change (`waiting_for_schedule_window`). */
    async logCampaignEvent({ campaignId, entry }: { campaignId: number; entry: CampaignLogEntry }): Promise<void> {
      await campaigns.appendLog(campaignId, entry);
    },

    /** Stores settings accepted while paused (domain/campaigns/save-settings.ts). */
    async saveCampaignSettings(input: { campaignId: number; change: Partial<CampaignSettings> }): Promise<void> {
      await saveSettings(input);
    },

    /** The terminal call status of a campaign call's run, or null while the call is not over. */
    campaignRunOutcome({ runId }: { runId: number }): Promise<TerminalCallStatus | null> {
      return runOutcome(runId);
    },
  };
}
