import { ApplicationFailure } from '@temporalio/common';
import type { DataSource, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Campaign, CampaignContact, Run } from '../entities';
import { settingsColumns, settingsOf } from '../domain/campaigns/campaign-settings';
import { DNC_SKIPPED } from '../domain/compliance/dial-rules';
import { conversationModeOf } from '../telephony/conversation-mode';
import type { StoredCredentials } from '../telephony/credentials';
import type { Secrets } from '../telephony/secrets';
import {
  campaignAttemptKey,
  campaignCallWorkflowId,
  DEFAULT_MAX_CALL_DURATION_SECONDS,
  isTerminalCampaignState,
  type CampaignSettings,
  type CampaignState,
  type TerminalCallStatus,
} from '../workflows/definitions';
import type { CallSettings } from './call-settings';
import { appendCampaignLog, type CampaignLogEntry } from './campaign/campaign-log';
import { campaignRoute, CampaignRouteError, type CampaignRoute } from './campaign/campaign-route';

export interface CampaignActivityDeps {
  dataSource: DataSource;
  secrets: Secrets;
  settings: Pick<CallSettings, 'telephonyApiBaseUrl'>;
}

/** The campaign row's counters (DECISIONS "Campaigns"), as the progress query reports them. */
/** What closing a campaign's queued retries counted: the contacts' final outcomes. */
export interface ClosedRetries {
  counters: CampaignCounters;
  outcomes: Partial<Record<TerminalCallStatus, number>>;
}

export interface CampaignCounters {
  total_rows: number;
  total_queued_count: number;
  executed_count: number;
  processed_rows: number;
  failed_rows: number;
  /** Contacts never dialed: their number is on the do-not-call list (also in processed and failed). */
  dnc_skipped: number;
  /** Dials put off by a frequency cap (one contact may be put off more than once). */
  frequency_capped: number;
}

export interface OpenedCampaign {
  state: CampaignState;
  settings: CampaignSettings;
  counters: CampaignCounters;
  /** Final outcomes so far, by call status. */
  outcomes: Partial<Record<TerminalCallStatus, number>>;
}

/** A contact as the workflow sees it: no phone number or context, only what dispatch needs. */
export interface ContactRef {
  contactId: string;
  timezone: string | null;
}

export interface AttemptRef {
  contactId: string;
  attempt: number;
}

export type PreparedAttempt = AttemptRef &
  (
    | { ok: true; runId: number; maxDurationSeconds: number; conversation: 'live' | 'simulated' }
    | { ok: false; error: string }
  );

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

export const countersOf = (row: Campaign): CampaignCounters => ({
  total_rows: row.totalRows ?? 0,
  total_queued_count: row.totalQueuedCount,
  executed_count: row.executedCount,
  processed_rows: row.processedRows,
  failed_rows: row.failedRows,
  dnc_skipped: row.dncSkippedCount,
  frequency_capped: row.frequencyCappedCount,
});

/**
 * The campaign workflow's only way to the campaign row: state, counters, attempts and logs. Every
 * write is idempotent (guarded by the attempt rows' and the state's current values), so an
 * activity retried after a worker crash never counts twice.
 */
export function createCampaignActivities({ dataSource, secrets, settings }: CampaignActivityDeps) {
  const addCounters = async (
    manager: EntityManager,
    campaignId: number,
    add: { queued?: number; executed?: number; processed?: number; failed?: number },
  ): Promise<CampaignCounters> => {
    await manager.query(
      `UPDATE campaigns SET total_queued_count = total_queued_count + $2, executed_count = executed_count + $3,
              processed_rows = processed_rows + $4, failed_rows = failed_rows + $5, updated_at = now()
        WHERE id = $1`,
      [campaignId, add.queued ?? 0, add.executed ?? 0, add.processed ?? 0, add.failed ?? 0],
    );
    return countersOf(await manager.findOneByOrFail(Campaign, { id: campaignId }));
  };

  const finalOutcomes = async (campaignId: number): Promise<OpenedCampaign['outcomes']> => {
    const rows = await dataSource.query<{ outcome: TerminalCallStatus; count: string }[]>(
      `SELECT a.outcome, count(*) AS count FROM campaign_attempts a
        WHERE a.campaign_id = $1 AND a.status = 'finished' AND a.outcome <> '${DNC_SKIPPED}'
          AND NOT EXISTS (SELECT 1 FROM campaign_attempts b WHERE b.campaign_id = a.campaign_id
                            AND b.contact_id = a.contact_id AND b.attempt_number > a.attempt_number
                            AND b.status <> 'cancelled')
        GROUP BY a.outcome`,
      [campaignId],
    );
    return Object.fromEntries(rows.map((row) => [row.outcome, Number(row.count)]));
  };

  return {
    /**
     * The campaign's settings, state and counters for a (new or continued) workflow run. The first
     * call moves a draft to `running`, sets `started_at` and `total_rows`, and logs `campaign_started`.
     */
    async openCampaign({ campaignId }: { campaignId: number }): Promise<OpenedCampaign> {
      const row = await dataSource.transaction(async (manager) => {
        const campaign = await manager.findOne(Campaign, {
          where: { id: campaignId },
          lock: { mode: 'pessimistic_write' },
        });
        // Retrying cannot make a deleted campaign appear: the workflow fails at once.
        if (!campaign)
          throw ApplicationFailure.nonRetryable(`Campaign ${campaignId} does not exist`, 'CampaignNotFound');
        if (campaign.state !== 'draft') return campaign;
        const totalRows = await manager.countBy(CampaignContact, { sourceId: campaign.sourceId });
        await manager.update(
          Campaign,
          { id: campaignId },
          { state: 'running', startedAt: () => 'now()', totalRows, updatedAt: () => 'now()' },
        );
        await appendCampaignLog(manager, campaignId, {
          level: 'info',
          event: 'campaign_started',
          message: `Campaign started with ${totalRows} contacts`,
          details: { total_rows: totalRows },
        });
        return manager.findOneByOrFail(Campaign, { id: campaignId });
      });
      return {
        state: row.state,
        settings: settingsOf(row),
        counters: countersOf(row),
        outcomes: await finalOutcomes(campaignId),
      };
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
      const rows = await dataSource.query<{ id: string; timezone: string | null }[]>(
        // A primary-key range scan over the list's id range, filtered on its source (see CampaignSource).
        // The bounds are scalar subqueries so they are parameters of one index scan in id order: a join
        // would sort the whole range for every page.
        `WITH list AS (SELECT s.id, s.first_contact_id, s.last_contact_id
                         FROM campaigns k JOIN campaign_sources s ON s.id = k.source_id WHERE k.id = $1)
         SELECT c.id, c.timezone FROM campaign_contacts c
          WHERE c.id > greatest($2::bigint, (SELECT first_contact_id - 1 FROM list))
            AND c.id <= (SELECT last_contact_id FROM list)
            AND c.source_id = (SELECT id FROM list)
          ORDER BY c.id LIMIT $3`,
        [campaignId, after, limit],
      );
      return rows.map((row) => ({ contactId: String(row.id), timezone: row.timezone }));
    },

    /**
     * Creates (once) the attempt rows and their runs for a batch of dials and returns each run.
     * An attempt that already has a run gets the same run back. When the campaign cannot dial
     * (no usable configuration or agent version) the attempts come back failed with the reason,
     * also given as `routeError` so the workflow can hold them and try again later.
     */
    async prepareCampaignAttempts({
      campaignId,
      attempts,
    }: {
      campaignId: number;
      attempts: AttemptRef[];
    }): Promise<{ prepared: PreparedAttempt[]; counters: CampaignCounters; routeError: string | null }> {
      return dataSource.transaction(async (manager) => {
        const campaign = await manager.findOneByOrFail(Campaign, { id: campaignId });
        const batch = JSON.stringify(
          attempts.map(({ contactId, attempt }) => ({
            contact_id: contactId,
            attempt,
            workflow_id: campaignCallWorkflowId(campaignId, contactId, attempt),
          })),
        );
        const inserted = await manager.query<unknown[]>(
          `INSERT INTO campaign_attempts (campaign_id, contact_id, attempt_number, temporal_workflow_id)
           SELECT $1, x.contact_id, x.attempt, x.workflow_id
             FROM jsonb_to_recordset($2::jsonb) AS x(contact_id bigint, attempt integer, workflow_id text)
           ON CONFLICT (campaign_id, contact_id, attempt_number) DO NOTHING RETURNING id`,
          [campaignId, batch],
        );
        const rows = await manager.query<
          {
            id: number;
            contact_id: string;
            attempt_number: number;
            run_id: number | null;
            phone_number: string;
            initial_context: Record<string, unknown>;
          }[]
        >(
          `SELECT a.id, a.contact_id, a.attempt_number, a.run_id, c.phone_number, c.initial_context
             FROM campaign_attempts a
             JOIN jsonb_to_recordset($2::jsonb) AS x(contact_id bigint, attempt integer)
               ON x.contact_id = a.contact_id AND x.attempt = a.attempt_number
             JOIN campaign_contacts c ON c.id = a.contact_id
            WHERE a.campaign_id = $1
            ORDER BY a.id
              FOR UPDATE OF a`,
          [campaignId, batch],
        );

        let route: CampaignRoute | null = null;
        let routeError: string | null = null;
        if (rows.some((row) => row.run_id === null)) {
          try {
            route = await campaignRoute(manager, secrets, campaign, { apiBaseUrl: settings.telephonyApiBaseUrl });
          } catch (error) {
            if (!(error instanceof CampaignRouteError)) throw error;
            routeError = error.message;
          }
        }

        const runIds = new Map<string, number>();
        for (const row of rows) {
          if (row.run_id !== null) {
            runIds.set(campaignAttemptKey(String(row.contact_id), row.attempt_number), row.run_id);
          }
        }
        const fresh = route ? rows.filter((row) => row.run_id === null) : [];
        if (route && fresh.length > 0) {
          const { version, configuration, callerNumber } = route;
          const created = await manager.save(
            fresh.map((row) => {
              const workflowId = campaignCallWorkflowId(campaignId, String(row.contact_id), row.attempt_number);
              return manager.create(Run, {
                organizationId: campaign.organizationId,
                agentId: campaign.workflowId,
                agentVersionId: version.id,
                name: workflowId,
                provider: configuration.provider,
                callType: 'outbound' as const,
                campaignId,
                campaignAttemptId: row.id,
                telephonyConfigurationId: configuration.id,
                calledNumber: row.phone_number,
                callerNumber,
                temporalWorkflowId: workflowId,
                initialContext: {
                  ...row.initial_context,
                  called_number: row.phone_number,
                  caller_number: callerNumber,
                  direction: 'outbound',
                  provider: configuration.provider,
                },
              });
            }),
          );
          const ids = created.map((run) => run.id);
          await manager.query(
            `UPDATE campaign_attempts a SET run_id = x.run_id, status = 'dialing', updated_at = now()
               FROM jsonb_to_recordset($1::jsonb) AS x(id integer, run_id integer) WHERE a.id = x.id`,
            [JSON.stringify(fresh.map((row, index) => ({ id: row.id, run_id: ids[index] })))],
          );
          fresh.forEach((row, index) => {
            runIds.set(campaignAttemptKey(String(row.contact_id), row.attempt_number), ids[index] ?? 0);
          });
        }
        const counters = await addCounters(manager, campaignId, { queued: inserted.length, executed: fresh.length });

        // Each run's limit comes from its own agent version (a resumed attempt keeps the version it was created with).
        // So does its conversation mode, from the configuration it dials through.
        const perRun = await manager.query<
          { id: number; max_call_duration: unknown; provider: string; credentials: StoredCredentials }[]
        >(
          `SELECT r.id, v.workflow_configurations -> 'max_call_duration' AS max_call_duration, t.provider, t.credentials
             FROM runs r
             JOIN agent_versions v ON v.id = r.definition_id
             JOIN telephony_configurations t ON t.id = r.telephony_configuration_id
            WHERE r.id = ANY($1)`,
          [[...runIds.values()]],
        );
        const maxDuration = new Map(
          perRun.map((row) => [
            row.id,
            typeof row.max_call_duration === 'number' && row.max_call_duration > 0
              ? row.max_call_duration
              : DEFAULT_MAX_CALL_DURATION_SECONDS,
          ]),
        );
        const modes = new Map(perRun.map((row) => [row.id, conversationModeOf(row, secrets)]));
        const prepared = attempts.map(({ contactId, attempt }): PreparedAttempt => {
          const runId = runIds.get(campaignAttemptKey(contactId, attempt));
          const conversation = runId === undefined ? undefined : modes.get(runId);
          if (runId === undefined || conversation === undefined) {
            return { contactId, attempt, ok: false, error: routeError ?? 'The attempt could not be prepared' };
          }
          const maxDurationSeconds = maxDuration.get(runId) ?? DEFAULT_MAX_CALL_DURATION_SECONDS;
          return { contactId, attempt, ok: true, runId, maxDurationSeconds, conversation };
        });
        return { prepared, counters, routeError };
      });
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
      return dataSource.transaction(async (manager) => {
        const batch = outcomes.map((item) => ({
          contact_id: item.contactId,
          attempt: item.attempt,
          outcome: item.outcome,
          run_id: item.runId,
          workflow_id: campaignCallWorkflowId(campaignId, item.contactId, item.attempt),
        }));
        const finished = await manager.query<{ contact_id: string; attempt_number: number; inserted: boolean }[]>(
          `INSERT INTO campaign_attempts AS a
                  (campaign_id, contact_id, attempt_number, temporal_workflow_id, status, outcome, run_id, finished_at)
           SELECT $1, x.contact_id, x.attempt, x.workflow_id, 'finished', x.outcome, x.run_id, now()
             FROM jsonb_to_recordset($2::jsonb) AS x(contact_id bigint, attempt integer, workflow_id text,
                                                     outcome text, run_id integer)
           ON CONFLICT (campaign_id, contact_id, attempt_number) DO UPDATE
              SET status = 'finished', outcome = EXCLUDED.outcome, run_id = coalesce(a.run_id, EXCLUDED.run_id),
                  finished_at = now(), updated_at = now()
            WHERE a.status <> 'finished'
           RETURNING a.contact_id, a.attempt_number, (xmax = 0) AS inserted`,
          [campaignId, JSON.stringify(batch)],
        );
        const done = new Set(finished.map((row) => `${String(row.contact_id)}/${row.attempt_number}`));
        const applied = outcomes.filter((item) => done.has(`${item.contactId}/${item.attempt}`));
        const final = applied.filter((item) => item.final);
        const retries = applied.filter((item) => !item.final && item.retryAt !== undefined);

        let queuedRetries = 0;
        if (retries.length > 0) {
          const rows = await manager.query<unknown[]>(
            `INSERT INTO campaign_attempts (campaign_id, contact_id, attempt_number, temporal_workflow_id, scheduled_for)
             SELECT $1, x.contact_id, x.attempt, x.workflow_id, to_timestamp(x.due_ms / 1000.0)
               FROM jsonb_to_recordset($2::jsonb) AS x(contact_id bigint, attempt integer, workflow_id text, due_ms bigint)
             ON CONFLICT (campaign_id, contact_id, attempt_number) DO NOTHING RETURNING id`,
            [
              campaignId,
              JSON.stringify(
                retries.map((item) => ({
                  contact_id: item.contactId,
                  attempt: item.attempt + 1,
                  workflow_id: campaignCallWorkflowId(campaignId, item.contactId, item.attempt + 1),
                  due_ms: item.retryAt,
                })),
              ),
            ],
          );
          queuedRetries = rows.length;
        }
        for (const item of applied) {
          if (item.initiationError === undefined) continue;
          await appendCampaignLog(manager, campaignId, {
            level: 'error',
            event: 'call_initiation_failed',
            message: `Call to contact ${item.contactId} (attempt ${item.attempt}) could not be initiated: ${item.initiationError}`,
            details: { contact_id: item.contactId, attempt: item.attempt, error: item.initiationError },
          });
        }
        return addCounters(manager, campaignId, {
          queued: queuedRetries + finished.filter((row) => row.inserted).length,
          processed: final.length,
          failed: final.filter((item) => item.outcome !== 'completed').length,
        });
      });
    },

    /**
     * Closes the retries still queued when a campaign is cancelled or fails: they are never dialed,
     * and each contact's last finished attempt becomes its final outcome, counted as processed.
     * Idempotent: a retried activity finds nothing queued and counts nothing twice.
     */
    async closeCampaignRetries({ campaignId }: { campaignId: number }): Promise<ClosedRetries> {
      return dataSource.transaction(async (manager) => {
        const closed = await manager.query<{ outcome: TerminalCallStatus; contacts: number }[]>(
          `WITH closed AS (
             UPDATE campaign_attempts SET status = 'cancelled', updated_at = now()
              WHERE campaign_id = $1 AND status = 'queued'
             RETURNING contact_id, attempt_number)
           SELECT previous.outcome, count(*)::int AS contacts
             FROM closed
             JOIN campaign_attempts previous
               ON previous.campaign_id = $1 AND previous.contact_id = closed.contact_id
              AND previous.attempt_number = closed.attempt_number - 1
            GROUP BY previous.outcome`,
          [campaignId],
        );
        const outcomes: Partial<Record<TerminalCallStatus, number>> = {};
        for (const { outcome, contacts } of closed) outcomes[outcome] = contacts;
        const processed = closed.reduce((sum, { contacts }) => sum + contacts, 0);
        const failed = closed.reduce((sum, row) => sum + (row.outcome === 'completed' ? 0 : row.contacts), 0);
        const counters = await addCounters(manager, campaignId, { processed, failed });
        return { counters, outcomes };
      });
    },

    /**
     * Moves the campaign from one of `from` to `to` and logs it; terminal states set `completed_at`.
     * A campaign already in `to` (a retried activity) is left as it is, without a second log entry.
     */
    async transitionCampaign({ campaignId, from, to, log }: CampaignTransition): Promise<void> {
      await dataSource.transaction(async (manager) => {
        const terminal = isTerminalCampaignState(to);
        const moved = await manager
          .createQueryBuilder()
          .update(Campaign)
          .set({
            state: to,
            updatedAt: () => 'now()',
            ...(terminal ? { completedAt: () => 'now()' } : {}),
          })
          .where('id = :campaignId AND state IN (:...from)', { campaignId, from })
          .execute();
        if (moved.affected) await appendCampaignLog(manager, campaignId, log);
      });
    },

    /** Appends a log entry that is not a state change (`waiting_for_schedule_window`). */
    async logCampaignEvent({ campaignId, entry }: { campaignId: number; entry: CampaignLogEntry }): Promise<void> {
      await appendCampaignLog(dataSource.manager, campaignId, entry);
    },

    /** Stores settings accepted by the workflow while paused and logs `config_updated`. */
    async saveCampaignSettings({
      campaignId,
      change,
    }: {
      campaignId: number;
      change: Partial<CampaignSettings>;
    }): Promise<void> {
      await dataSource.transaction(async (manager) => {
        await manager.update(
          Campaign,
          { id: campaignId },
          {
            ...(settingsColumns(change) as QueryDeepPartialEntity<Campaign>),
            updatedAt: () => 'now()',
          },
        );
        await appendCampaignLog(manager, campaignId, {
          level: 'info',
          event: 'config_updated',
          message: `Campaign settings updated: ${Object.keys(change).join(', ')}`,
          details: { ...change },
        });
      });
    },

    /** The terminal call status of a campaign call's run, or null while the call is not over. */
    async campaignRunOutcome({ runId }: { runId: number }): Promise<TerminalCallStatus | null> {
      const run = await dataSource.getRepository(Run).findOneBy({ id: runId });
      if (!run?.isCompleted) return null;
      return (run.gatheredContext.call_status as TerminalCallStatus | undefined) ?? 'error';
    },
  };
}
