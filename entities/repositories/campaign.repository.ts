import type { DataSource, DeepPartial, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { CampaignState } from '../../domain/campaigns/settings';
import { TRANSFERRED } from '../../domain/runs/types';
import { Campaign } from '../campaign.entity';
import { CampaignContact } from '../campaign-contact.entity';
import { CampaignLog } from '../campaign-log.entity';
import { Run } from '../run.entity';

/** The campaign row's counters, as the progress query reports them. */
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
  /**
   * Contacts whose call was transferred to a person (final, as `completed`: also in processed).
   * Absent from counters recorded before transfers were counted.
   */
  transferred?: number;
}

/** A `logs[]` entry of a campaign. */
export interface CampaignLogEntry {
  level: 'info' | 'warning' | 'error';
  event: string;
  message: string;
  details?: Record<string, unknown>;
}

/** One attempt of one contact, with the id of the call workflow that dials it. */
export interface AttemptKey {
  contactId: string;
  attempt: number;
  workflowId: string;
}

/** An attempt row locked for dialing, with what its run needs of the contact. */
export interface LockedAttempt {
  id: number;
  contactId: string;
  attempt: number;
  runId: number | null;
  phoneNumber: string;
  /** The contact's data row in its uploaded file. */
  rowNumber: number;
  initialContext: Record<string, unknown>;
}

/** What a run dials with: its agent version's `max_call_duration` (unchecked) and its configuration. */
export interface RunDialSettings {
  runId: number;
  maxCallDuration: unknown;
  provider: string;
  /** As stored (sealed secrets); the telephony layer opens them. */
  credentials: Record<string, unknown>;
}

/** Final outcomes (call statuses) and how many contacts ended with each. */
export type OutcomeCounts = Partial<Record<string, number>>;

const countersOf = (row: Campaign): CampaignCounters => ({
  total_rows: row.totalRows ?? 0,
  total_queued_count: row.totalQueuedCount,
  executed_count: row.executedCount,
  processed_rows: row.processedRows,
  failed_rows: row.failedRows,
  dnc_skipped: row.dncSkippedCount,
  frequency_capped: row.frequencyCappedCount,
  transferred: row.transferredCount,
});

/**
 * The campaign workflow's reads and writes of its campaign: state, counters, attempts and logs, as
 * named statements. Writes to attempts are keyed by (campaign, contact, attempt), so running one
 * again (a retried activity) changes nothing the first run did.
 */
export function campaignStatements(manager: EntityManager) {
  return {
    /** The campaign, locked for the rest of the transaction; null when it does not exist. */
    lockCampaign(campaignId: number): Promise<Campaign | null> {
      return manager.findOne(Campaign, { where: { id: campaignId }, lock: { mode: 'pessimistic_write' } });
    },

    getCampaign(campaignId: number): Promise<Campaign> {
      return manager.findOneByOrFail(Campaign, { id: campaignId });
    },

    countersOf,

    countContacts(sourceId: string): Promise<number> {
      return manager.countBy(CampaignContact, { sourceId });
    },

    /** A draft becomes `running`, with its start time and contact count. */
    async markStarted(campaignId: number, totalRows: number): Promise<void> {
      await manager.update(
        Campaign,
        { id: campaignId },
        { state: 'running', startedAt: () => 'now()', totalRows, updatedAt: () => 'now()' },
      );
    },

    /** Moves the campaign from one of `from` to `to`; `completed` also sets `completed_at`. False when it was in none of `from`. */
    async moveState(
      campaignId: number,
      from: CampaignState[],
      to: CampaignState,
      { completed }: { completed: boolean },
    ): Promise<boolean> {
      const moved = await manager
        .createQueryBuilder()
        .update(Campaign)
        .set({ state: to, updatedAt: () => 'now()', ...(completed ? { completedAt: () => 'now()' } : {}) })
        .where('id = :campaignId AND state IN (:...from)', { campaignId, from })
        .execute();
      return Boolean(moved.affected);
    },

    async updateSettings(campaignId: number, columns: Partial<Campaign>): Promise<void> {
      await manager.update(
        Campaign,
        { id: campaignId },
        { ...(columns as QueryDeepPartialEntity<Campaign>), updatedAt: () => 'now()' },
      );
    },

    async appendLog(campaignId: number, entry: CampaignLogEntry): Promise<void> {
      await manager.save(manager.create(CampaignLog, { campaignId, ...entry, details: entry.details ?? {} }));
    },

    /** Adds to the counters in one statement and returns them all. */
    async addCounters(
      campaignId: number,
      add: { queued?: number; executed?: number; processed?: number; failed?: number; transferred?: number },
    ): Promise<CampaignCounters> {
      await manager.query(
        `UPDATE campaigns SET total_queued_count = total_queued_count + $2, executed_count = executed_count + $3,
                processed_rows = processed_rows + $4, failed_rows = failed_rows + $5,
                transferred_count = transferred_count + $6, updated_at = now()
          WHERE id = $1`,
        [campaignId, add.queued ?? 0, add.executed ?? 0, add.processed ?? 0, add.failed ?? 0, add.transferred ?? 0],
      );
      return countersOf(await manager.findOneByOrFail(Campaign, { id: campaignId }));
    },

    /**
     * Moves the campaign onto its fallback telephony configuration, once: the configurations it
     * left and took, or null when it has no fallback or already switched.
     */
    async switchToFallback(campaignId: number): Promise<{ fromId: number | null; toId: number } | null> {
      // A SELECT around the UPDATE: the ORM answers a bare UPDATE with [rows, count] instead of rows.
      const [switched] = await manager.query<{ from_id: number | null; to_id: number }[]>(
        `WITH switched AS (
           UPDATE campaigns SET failed_over_at = now(), updated_at = now()
            WHERE id = $1 AND failed_over_at IS NULL AND fallback_telephony_configuration_id IS NOT NULL
           RETURNING coalesce(telephony_configuration_id,
                              (SELECT t.id FROM telephony_configurations t
                                WHERE t.organization_id = campaigns.organization_id AND t.is_default_outbound)) AS from_id,
                     fallback_telephony_configuration_id AS to_id)
         SELECT from_id, to_id FROM switched`,
        [campaignId],
      );
      return switched ? { fromId: switched.from_id, toId: switched.to_id } : null;
    },

    /** Each contact's final outcome so far (its last finished attempt, no later one pending), counted by outcome. */
    async finalOutcomes(campaignId: number): Promise<OutcomeCounts> {
      const rows = await manager.query<{ outcome: string; count: string }[]>(
        `SELECT a.outcome, count(*) AS count FROM campaign_attempts a
          WHERE a.campaign_id = $1 AND a.status = 'finished' AND a.outcome <> 'dnc_skipped'
            AND NOT EXISTS (SELECT 1 FROM campaign_attempts b WHERE b.campaign_id = a.campaign_id
                              AND b.contact_id = a.contact_id AND b.attempt_number > a.attempt_number
                              AND b.status <> 'cancelled')
          GROUP BY a.outcome`,
        [campaignId],
      );
      return Object.fromEntries(rows.map((row) => [row.outcome, Number(row.count)]));
    },

    /** The next page of the campaign's contacts after contact id `after`, in id order. */
    async contactsAfter(
      campaignId: number,
      after: string,
      limit: number,
    ): Promise<{ contactId: string; timezone: string | null }[]> {
      const rows = await manager.query<{ id: string; timezone: string | null }[]>(
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

    /** Inserts the attempts that do not exist yet (as `queued`); returns how many were new. */
    async insertAttempts(campaignId: number, attempts: AttemptKey[]): Promise<number> {
      const inserted = await manager.query<unknown[]>(
        `INSERT INTO campaign_attempts (campaign_id, contact_id, attempt_number, temporal_workflow_id)
         SELECT $1, x.contact_id, x.attempt, x.workflow_id
           FROM jsonb_to_recordset($2::jsonb) AS x(contact_id bigint, attempt integer, workflow_id text)
         ON CONFLICT (campaign_id, contact_id, attempt_number) DO NOTHING RETURNING id`,
        [campaignId, JSON.stringify(attempts.map(attemptRecord))],
      );
      return inserted.length;
    },

    /** The attempt rows, locked, with their contacts' numbers and context, in row order. */
    async lockAttempts(campaignId: number, attempts: AttemptKey[]): Promise<LockedAttempt[]> {
      const rows = await manager.query<
        {
          id: number;
          contact_id: string;
          attempt_number: number;
          run_id: number | null;
          phone_number: string;
          row_number: number;
          initial_context: Record<string, unknown>;
        }[]
      >(
        `SELECT a.id, a.contact_id, a.attempt_number, a.run_id, c.phone_number, c.row_number, c.initial_context
           FROM campaign_attempts a
           JOIN jsonb_to_recordset($2::jsonb) AS x(contact_id bigint, attempt integer)
             ON x.contact_id = a.contact_id AND x.attempt = a.attempt_number
           JOIN campaign_contacts c ON c.id = a.contact_id
          WHERE a.campaign_id = $1
          ORDER BY a.id
            FOR UPDATE OF a`,
        [campaignId, JSON.stringify(attempts.map(attemptRecord))],
      );
      return rows.map((row) => ({
        id: row.id,
        contactId: String(row.contact_id),
        attempt: row.attempt_number,
        runId: row.run_id,
        phoneNumber: row.phone_number,
        rowNumber: row.row_number,
        initialContext: row.initial_context,
      }));
    },

    /** Saves the runs; returns their ids in the same order. */
    async insertRuns(runs: DeepPartial<Run>[]): Promise<number[]> {
      const saved = await manager.save(runs.map((run) => manager.create(Run, run)));
      return saved.map((run) => run.id);
    },

    /** Ties each attempt to its run and marks it `dialing`. */
    async startDialing(links: { attemptId: number; runId: number }[]): Promise<void> {
      await manager.query(
        `UPDATE campaign_attempts a SET run_id = x.run_id, status = 'dialing', updated_at = now()
           FROM jsonb_to_recordset($1::jsonb) AS x(id integer, run_id integer) WHERE a.id = x.id`,
        [JSON.stringify(links.map(({ attemptId, runId }) => ({ id: attemptId, run_id: runId })))],
      );
    },

    /** What each run dials with, from its own agent version and configuration. */
    async dialSettingsOfRuns(runIds: number[]): Promise<RunDialSettings[]> {
      const rows = await manager.query<
        { id: number; max_call_duration: unknown; provider: string; credentials: Record<string, unknown> }[]
      >(
        `SELECT r.id, v.workflow_configurations -> 'max_call_duration' AS max_call_duration, t.provider, t.credentials
           FROM runs r
           JOIN agent_versions v ON v.id = r.definition_id
           JOIN telephony_configurations t ON t.id = r.telephony_configuration_id
          WHERE r.id = ANY($1)`,
        [runIds],
      );
      return rows.map((row) => ({
        runId: row.id,
        maxCallDuration: row.max_call_duration,
        provider: row.provider,
        credentials: row.credentials,
      }));
    },

    /**
     * Marks the attempts `finished` with their outcomes, inserting those the campaign never
     * prepared. Attempts already finished are left alone and not returned; `inserted` tells the
     * new rows (attempts queued by this statement).
     */
    async finishAttempts(
      campaignId: number,
      outcomes: (AttemptKey & { outcome: string; runId: number | null })[],
    ): Promise<{ contactId: string; attempt: number; inserted: boolean }[]> {
      const rows = await manager.query<{ contact_id: string; attempt_number: number; inserted: boolean }[]>(
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
        [
          campaignId,
          JSON.stringify(
            outcomes.map((item) => ({ ...attemptRecord(item), outcome: item.outcome, run_id: item.runId })),
          ),
        ],
      );
      return rows.map((row) => ({
        contactId: String(row.contact_id),
        attempt: row.attempt_number,
        inserted: row.inserted,
      }));
    },

    /** Queues retries due at `dueMs` (epoch milliseconds); returns how many were new. */
    async queueRetries(campaignId: number, retries: (AttemptKey & { dueMs: number })[]): Promise<number> {
      if (retries.length === 0) return 0;
      const rows = await manager.query<unknown[]>(
        `INSERT INTO campaign_attempts (campaign_id, contact_id, attempt_number, temporal_workflow_id, scheduled_for)
         SELECT $1, x.contact_id, x.attempt, x.workflow_id, to_timestamp(x.due_ms / 1000.0)
           FROM jsonb_to_recordset($2::jsonb) AS x(contact_id bigint, attempt integer, workflow_id text, due_ms bigint)
         ON CONFLICT (campaign_id, contact_id, attempt_number) DO NOTHING RETURNING id`,
        [campaignId, JSON.stringify(retries.map((item) => ({ ...attemptRecord(item), due_ms: item.dueMs })))],
      );
      return rows.length;
    },

    /**
     * Cancels the queued retries; returns, by the outcome of each such contact's previous
     * (finished) attempt, how many contacts that closed.
     */
    cancelQueuedRetries(campaignId: number): Promise<{ outcome: string; contacts: number }[]> {
      return manager.query<{ outcome: string; contacts: number }[]>(
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
    },

    /** How many of these runs were transferred to a person (their disposition is `transferred`). */
    async countTransferred(runIds: number[]): Promise<number> {
      if (runIds.length === 0) return 0;
      const [row] = await manager.query<{ count: number }[]>(
        `SELECT count(*)::int AS count FROM runs WHERE id = ANY($1) AND disposition = $2`,
        [runIds, TRANSFERRED],
      );
      return row?.count ?? 0;
    },

    findRun(runId: number): Promise<Run | null> {
      return manager.findOneBy(Run, { id: runId });
    },
  };
}

export type CampaignStatements = ReturnType<typeof campaignStatements>;

/**
 * The campaign statements over a DataSource: each on its own, or several in one transaction
 * (`transaction` also hands over the transaction's manager for reads outside the campaign tables).
 */
export function createCampaignRepository({ dataSource }: { dataSource: DataSource }) {
  return {
    ...campaignStatements(dataSource.manager),
    transaction<T>(work: (campaigns: CampaignStatements, manager: EntityManager) => Promise<T>): Promise<T> {
      return dataSource.transaction((manager) => work(campaignStatements(manager), manager));
    },
  };
}

export type CampaignRepository = ReturnType<typeof createCampaignRepository>;

const attemptRecord = ({ contactId, attempt, workflowId }: AttemptKey) => ({
  contact_id: contactId,
  attempt,
  workflow_id: workflowId,
});
