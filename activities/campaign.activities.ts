import { ApplicationFailure } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import { isTerminalCampaignState } from '../domain/campaigns/settings';
import { settingsColumns, settingsOf } from '../domain/campaigns/campaign-settings';
import {
  keyedAttempt,
  prepareCampaignAttempts as prepareAttempts,
  type AttemptBatch,
  type AttemptRef,
  type PreparedAttempt,
  type PreparedAttempts,
} from '../domain/campaigns/prepare-attempts';
import {
  createCampaignRepository,
  type CampaignCounters,
  type CampaignLogEntry,
} from '../entities/repositories/campaign.repository';
import type { Secrets } from '../telephony/secrets';
import {
  campaignAttemptKey,
  type CampaignSettings,
  type CampaignState,
  type TerminalCallStatus,
} from '../workflows/definitions';
import { countCampaignDials } from './call-metrics';
import type { CallSettings } from '../domain/calls/call-settings';

export type { AttemptRef, CampaignCounters, CampaignLogEntry, PreparedAttempt };

export interface CampaignActivityDeps {
  dataSource: DataSource;
  secrets: Secrets;
  settings: Pick<CallSettings, 'telephonyApiBaseUrl'>;
}

/** What closing a campaign's queued retries counted: the contacts' final outcomes. */
export interface ClosedRetries {
  counters: CampaignCounters;
  outcomes: Partial<Record<TerminalCallStatus, number>>;
}

export interface OpenedCampaign {
  state: CampaignState;
  settings: CampaignSettings;
  counters: CampaignCounters;
  /** Final outcomes so far, by call status. */
  outcomes: Partial<Record<TerminalCallStatus, number>>;
  /** Whether the campaign names a fallback configuration, and whether it dials through it already. */
  failover: { available: boolean; active: boolean };
}

/** A contact as the workflow sees it: no phone number or context, only what dispatch needs. */
export interface ContactRef {
  contactId: string;
  timezone: string | null;
}

export interface AttemptOutcome extends AttemptRef {
  outcome: TerminalCallStatus;
  runId: number | null;
  /** True when the contact is done; false when a retry follows at `retryAt`. */
  final: boolean;
  retryAt?: number;
  /** Set when the call could not be initiated: logged as `call_initiation_failed`. */
  initiationError?: string;
}

export interface CampaignTransition {
  campaignId: number;
  from: CampaignState[];
  to: CampaignState;
  log: CampaignLogEntry;
}

/**
 * The campaign workflow's only way to the campaign row: state, counters, attempts and logs, through
 * the campaign repository. Every write is idempotent (guarded by the attempt rows' and the state's
 * current values), so an activity retried after a worker crash never counts twice.
 */
export function createCampaignActivities({ dataSource, secrets, settings }: CampaignActivityDeps) {
  const campaigns = createCampaignRepository({ dataSource });
  const preparation = { campaigns, secrets, telephony: { apiBaseUrl: settings.telephonyApiBaseUrl, dataSource } };

  return {
    /**
     * The campaign's settings, state and counters for a (new or continued) workflow run. The first
     * call moves a draft to `running`, sets `started_at` and `total_rows`, and logs `campaign_started`.
     */
    async openCampaign({ campaignId }: { campaignId: number }): Promise<OpenedCampaign> {
      const row = await campaigns.transaction(async (tx) => {
        const campaign = await tx.lockCampaign(campaignId);
        // Retrying cannot make a deleted campaign appear: the workflow fails at once.
        if (!campaign)
          throw ApplicationFailure.nonRetryable(`Campaign ${campaignId} does not exist`, 'CampaignNotFound');
        if (campaign.state !== 'draft') return campaign;
        // A list in use by a draft cannot be deleted; this guards a row changed outside the API.
        if (campaign.sourceId === null)
          throw ApplicationFailure.nonRetryable(`Campaign ${campaignId} has no contact list`, 'CampaignSourceDeleted');
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
        failover: {
          available: row.fallbackTelephonyConfigurationId !== null,
          active: row.fallbackTelephonyConfigurationId !== null && row.failedOverAt !== null,
        },
      };
    },

    /**
     * Switches the campaign to its fallback configuration and logs `provider_failover` with the
     * breaker's figures; a campaign already switched (a retried activity) is left as it is.
     */
    async failOverCampaign({
      campaignId,
      figures,
    }: {
      campaignId: number;
      figures: Record<string, number>;
    }): Promise<void> {
      await campaigns.transaction(async (tx) => {
        const switched = await tx.switchToFallback(campaignId);
        if (!switched) return;
        const percent = (value: number | undefined) => `${((value ?? 0) * 100).toFixed(2)}%`;
        await tx.appendLog(campaignId, {
          level: 'warning',
          event: 'provider_failover',
          message:
            `Switched to the fallback telephony configuration ${switched.toId}: failure rate ` +
            `${percent(figures.failure_rate)} (${figures.failure_count}/${figures.call_count}) exceeded ` +
            `threshold ${percent(figures.threshold)} in ${figures.window_seconds}s window`,
          details: {
            ...figures,
            from_telephony_configuration_id: switched.fromId,
            to_telephony_configuration_id: switched.toId,
          },
        });
      });
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

    /**
     * Creates (once) the attempt rows and their runs for a batch of dials and returns each run
     * (`prepareCampaignAttempts` in domain/campaigns/prepare-attempts.ts).
     */
    async prepareCampaignAttempts(batch: AttemptBatch): Promise<PreparedAttempts> {
      const { dialed, ...prepared } = await prepareAttempts(preparation, batch);
      countCampaignDials(dialed);
      return prepared;
    },

    /**
     * Records a batch of attempt outcomes: finishes the attempt rows, queues the retries, counts
     * final outcomes into `processed_rows` / `failed_rows` and logs initiation failures. Attempts
     * already finished (a retried activity) are left alone and counted once.
     */
    async recordCampaignOutcomes({
      campaignId,
      outcomes,
    }: {
      campaignId: number;
      outcomes: AttemptOutcome[];
    }): Promise<CampaignCounters> {
      return campaigns.transaction(async (tx) => {
        const finished = await tx.finishAttempts(
          campaignId,
          outcomes.map((item) => ({ ...keyedAttempt(campaignId, item), outcome: item.outcome, runId: item.runId })),
        );
        const done = new Set(finished.map((row) => campaignAttemptKey(row.contactId, row.attempt)));
        const applied = outcomes.filter((item) => done.has(campaignAttemptKey(item.contactId, item.attempt)));
        const final = applied.filter((item) => item.final);
        const queuedRetries = await tx.queueRetries(
          campaignId,
          applied.flatMap((item) =>
            !item.final && item.retryAt !== undefined
              ? [
                  {
                    ...keyedAttempt(campaignId, { contactId: item.contactId, attempt: item.attempt + 1 }),
                    dueMs: item.retryAt,
                  },
                ]
              : [],
          ),
        );
        for (const item of applied) {
          if (item.initiationError === undefined) continue;
          await tx.appendLog(campaignId, {
            level: 'error',
            event: 'call_initiation_failed',
            message: `Call to contact ${item.contactId} (attempt ${item.attempt}) could not be initiated: ${item.initiationError}`,
            details: { contact_id: item.contactId, attempt: item.attempt, error: item.initiationError },
          });
        }
        // A call put through to a person is reached (`completed`, never retried) and counted apart too.
        const transferred = await tx.countTransferred(
          final.flatMap((item) => (item.outcome === 'completed' && item.runId !== null ? [item.runId] : [])),
        );
        return tx.addCounters(campaignId, {
          queued: queuedRetries + finished.filter((row) => row.inserted).length,
          processed: final.length,
          failed: final.filter((item) => item.outcome !== 'completed').length,
          transferred,
        });
      });
    },

    /**
     * Closes the retries still queued when a campaign is cancelled or fails: they are never dialed,
     * and each contact's last finished attempt becomes its final outcome, counted as processed.
     * Idempotent: a retried activity finds nothing queued and counts nothing twice.
     */
    async closeCampaignRetries({ campaignId }: { campaignId: number }): Promise<ClosedRetries> {
      return campaigns.transaction(async (tx) => {
        const closed = await tx.cancelQueuedRetries(campaignId);
        const outcomes: Partial<Record<TerminalCallStatus, number>> = {};
        for (const { outcome, contacts } of closed) outcomes[outcome as TerminalCallStatus] = contacts;
        const processed = closed.reduce((sum, { contacts }) => sum + contacts, 0);
        const failed = closed.reduce((sum, row) => sum + (row.outcome === 'completed' ? 0 : row.contacts), 0);
        const counters = await tx.addCounters(campaignId, { processed, failed });
        return { counters, outcomes };
      });
    },

    /**
     * Moves the campaign from one of `from` to `to` and logs it; terminal states set `completed_at`.
     * A campaign already in `to` (a retried activity) is left as it is, without a second log entry.
     */
    async transitionCampaign({ campaignId, from, to, log }: CampaignTransition): Promise<void> {
      await campaigns.transaction(async (tx) => {
        const moved = await tx.moveState(campaignId, from, to, { completed: isTerminalCampaignState(to) });
        if (moved) await tx.appendLog(campaignId, log);
      });
    },

    /** Appends a log entry that is not a state change (`waiting_for_schedule_window`). */
    async logCampaignEvent({ campaignId, entry }: { campaignId: number; entry: CampaignLogEntry }): Promise<void> {
      await campaigns.appendLog(campaignId, entry);
    },

    /**
     * Stores settings accepted by the workflow while paused and logs `config_updated`. A new
     * fallback configuration (or none) re-arms the failover, as the workflow does: `failed_over_at` is cleared.
     */
    async saveCampaignSettings({
      campaignId,
      change,
    }: {
      campaignId: number;
      change: Partial<CampaignSettings>;
    }): Promise<void> {
      await campaigns.transaction(async (tx) => {
        const current = await tx.getCampaign(campaignId);
        const rearmed =
          change.fallback !== undefined &&
          (change.fallback?.telephony_configuration_id ?? null) !== current.fallbackTelephonyConfigurationId;
        await tx.updateSettings(campaignId, { ...settingsColumns(change), ...(rearmed ? { failedOverAt: null } : {}) });
        await tx.appendLog(campaignId, {
          level: 'info',
          event: 'config_updated',
          message: `Campaign settings updated: ${Object.keys(change).join(', ')}`,
          details: { ...change },
        });
      });
    },

    /** The terminal call status of a campaign call's run, or null while the call is not over. */
    async campaignRunOutcome({ runId }: { runId: number }): Promise<TerminalCallStatus | null> {
      const run = await campaigns.findRun(runId);
      if (!run?.isCompleted) return null;
      return (run.gatheredContext.call_status as TerminalCallStatus | undefined) ?? 'error';
    },
  };
}
