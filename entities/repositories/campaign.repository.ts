import type { DataSource, DeepPartial, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import type { CampaignState } from '../../domain/campaigns/settings';
import { TRANSFERRED } from '../../domain/runs/types';
import { Campaign } from '../campaign.entity';
import { CampaignContact } from '../campaign-contact.entity';
import { CampaignLog } from '../campaign-log.entity';
import { Run } from '../run.entity';
import { callTargetStatements } from './call-target.repository';

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

/** A campaign's agent and configuration names, as its view shows them. */
export interface CampaignNames {
  id: number;
  workflow_name: string;
  telephony_configuration_name: string | null;
}

/** A `campaign_logs` row, as a campaign's view lists it. */
export interface CampaignLogRow {
  campaign_id: number;
  created_at: Date;
  level: string;
  event: string;
  message: string;
  details: Record<string, unknown>;
}

/** The latest log entry of some events of a campaign. */
export interface LatestCampaignLog {
  event: string;
  message: string;
  details: Record<string, unknown> | null;
  created_at: Date;
}

/** An attempt of a batch being screened by the dial rules, with its contact's number. */
export interface AttemptToScreen {
  id: number;
  contact_id: string;
  attempt_number: number;
  status: string;
  outcome: string | null;
  run_id: number | null;
  phone_number: string;
}

/** The campaign report's figures over its analysed runs. */
export interface CampaignAnalysisFigures {
  analyzed_calls: number;
  evaluated_calls: number;
  successful_calls: number;
  positive: number;
  neutral: number;
  negative: number;
  top_tags: { tag: string; calls: number }[];
}

/** The campaign report's one statement: `$1` the campaign, `$2` how many tags it names. */
export const CAMPAIGN_ANALYSIS_SQL = `WITH analyzed AS MATERIALIZED (
     SELECT annotations -> 'analysis' AS analysis, annotations -> 'tags' AS tags
       FROM runs
      WHERE campaign_id = $1 AND annotations ? 'analysis' AND erased_at IS NULL)
   SELECT count(*)::int AS analyzed_calls,
          count(*) FILTER (WHERE analysis ? 'success')::int AS evaluated_calls,
          count(*) FILTER (WHERE analysis -> 'success' -> 'successful' = 'true'::jsonb)::int AS successful_calls,
          count(*) FILTER (WHERE analysis ->> 'sentiment' = 'positive')::int AS positive,
          count(*) FILTER (WHERE analysis ->> 'sentiment' = 'neutral')::int AS neutral,
          count(*) FILTER (WHERE analysis ->> 'sentiment' = 'negative')::int AS negative,
          coalesce((SELECT jsonb_agg(jsonb_build_object('tag', tag, 'calls', calls) ORDER BY calls DESC, tag)
                      FROM (SELECT tag, count(*)::int AS calls
                              FROM analyzed,
                                   jsonb_array_elements_text(CASE WHEN jsonb_typeof(tags) = 'array' THEN tags
                                                                  ELSE '[]'::jsonb END) AS tag
                             GROUP BY tag ORDER BY calls DESC, tag LIMIT $2) top), '[]'::jsonb) AS top_tags
     FROM analyzed`;

// Advisory-lock namespace of the calls in flight reservation (see domain/quotas.ts for the quotas' own); the second key is the organization.
const CALLS_IN_FLIGHT_LOCK_SPACE = 0x5157_0100;

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
    // What a campaign dials through: its agent, version, configuration and numbers, read as calls read them.
    ...callTargetStatements(manager),
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

    /** The organization's campaign, locked for the rest of the transaction; null when it is missing or another organization's. */
    lockOwnedCampaign(organizationId: number, id: number): Promise<Campaign | null> {
      return manager.findOne(Campaign, {
        where: { id, organizationId },
        lock: { mode: 'pessimistic_write' },
      });
    },

    /** The organization's campaign with that id; null when it is missing or another organization's. */
    findOwnedCampaign(organizationId: number, id: number): Promise<Campaign | null> {
      return manager.findOneBy(Campaign, { id, organizationId });
    },

    /** A page of the organization's campaigns, newest first, optionally in one state, and how many there are. */
    campaignPageOf(
      organizationId: number,
      page: { state?: CampaignState | undefined; skip: number; take: number },
    ): Promise<[Campaign[], number]> {
      return manager.findAndCount(Campaign, {
        where: { organizationId, ...(page.state ? { state: page.state } : {}) },
        order: { createdAt: 'DESC', id: 'DESC' },
        skip: page.skip,
        take: page.take,
      });
    },

    /** The campaigns' agent and configuration names. */
    namesOf(ids: number[]): Promise<CampaignNames[]> {
      return manager.query<CampaignNames[]>(
        `SELECT c.id, a.name AS workflow_name, t.name AS telephony_configuration_name
         FROM campaigns c
         JOIN agents a ON a.id = c.workflow_id
         LEFT JOIN telephony_configurations t ON t.id = c.telephony_configuration_id
        WHERE c.id = ANY($1)`,
        [ids],
      );
    },

    /** The campaigns' logs, by campaign, oldest first. */
    logsOf(ids: number[]): Promise<CampaignLogRow[]> {
      return manager.query<CampaignLogRow[]>(
        `SELECT campaign_id, created_at, level, event, message, details
         FROM campaign_logs WHERE campaign_id = ANY($1) ORDER BY campaign_id, id`,
        [ids],
      );
    },

    /** The campaign's latest log entry among `events`. */
    async lastLogOf(campaignId: number, events: string[]): Promise<LatestCampaignLog | undefined> {
      const [row] = await manager.query<LatestCampaignLog[]>(
        `SELECT event, message, details, created_at FROM campaign_logs
      WHERE campaign_id = $1 AND event = ANY ($2) ORDER BY id DESC LIMIT 1`,
        [campaignId, events],
      );
      return row;
    },

    /** Calls started but not yet placed with the provider. */
    async callsWaitingForTurn(campaignId: number): Promise<number> {
      const [row] = await manager.query<{ count: number }[]>(
        `SELECT count(*)::int AS count
       FROM campaign_attempts a JOIN runs r ON r.id = a.run_id
      WHERE a.campaign_id = $1 AND a.status = 'dialing' AND r.provider_call_id IS NULL AND NOT r.is_completed`,
        [campaignId],
      );
      return row?.count ?? 0;
    },

    /** How many contacts' last finished attempt ended with each outcome, `excluded` left out. */
    lastOutcomeCounts(campaignId: number, excluded: string): Promise<{ outcome: string; contacts: number }[]> {
      return manager.query<{ outcome: string; contacts: number }[]>(
        `SELECT last.outcome, count(*)::int AS contacts
         FROM (SELECT DISTINCT ON (contact_id) outcome
                 FROM campaign_attempts WHERE campaign_id = $1 AND status = 'finished'
                ORDER BY contact_id, attempt_number DESC) last
        WHERE last.outcome <> $2
        GROUP BY last.outcome`,
        [campaignId, excluded],
      );
    },

    /** How many attempts are dialing and how many are queued. */
    async pendingAttemptCounts(campaignId: number): Promise<{ in_flight: number; queued: number } | undefined> {
      const [row] = await manager.query<{ in_flight: number; queued: number }[]>(
        `SELECT count(*) FILTER (WHERE status = 'dialing')::int AS in_flight,
              count(*) FILTER (WHERE status = 'queued')::int AS queued
         FROM campaign_attempts WHERE campaign_id = $1`,
        [campaignId],
      );
      return row;
    },

    /** The campaign report's figures (`CAMPAIGN_ANALYSIS_SQL`), naming at most `topTags` tags. */
    async analysisFigures(campaignId: number, topTags: number): Promise<CampaignAnalysisFigures> {
      const [row] = await manager.query<CampaignAnalysisFigures[]>(CAMPAIGN_ANALYSIS_SQL, [campaignId, topTags]);
      return row as CampaignAnalysisFigures;
    },

    /**
     * Takes the organization's calls in flight lock for the rest of the transaction: campaigns of one
     * organization starting or resuming at once take turns.
     */
    async lockCallsInFlight(organizationId: number): Promise<void> {
      await manager.query('SELECT pg_advisory_xact_lock($1, $2)', [CALLS_IN_FLIGHT_LOCK_SPACE, organizationId]);
    },

    /** The organization's campaign's `max_concurrency`; null when it is missing or another organization's. */
    async ownedMaxConcurrency(organizationId: number, campaignId: number): Promise<number | null> {
      const [campaign] = await manager.query<{ max_concurrency: number }[]>(
        'SELECT max_concurrency FROM campaigns WHERE id = $1 AND organization_id = $2',
        [campaignId, organizationId],
      );
      return campaign ? campaign.max_concurrency : null;
    },

    /** The sum of `max_concurrency` over the organization's running campaigns other than `campaignId`. */
    async callsReservedByOthers(organizationId: number, campaignId: number): Promise<number> {
      const [held] = await manager.query<{ reserved: number }[]>(
        `SELECT coalesce(sum(max_concurrency), 0)::int AS reserved FROM campaigns
        WHERE organization_id = $1 AND state = 'running' AND id <> $2`,
        [organizationId, campaignId],
      );
      return held?.reserved ?? 0;
    },

    /** Inserts a new campaign row. */
    insertCampaign(fields: DeepPartial<Campaign>): Promise<Campaign> {
      return manager.save(manager.create(Campaign, fields));
    },

    /** Writes a campaign row's changed columns. */
    saveCampaign(row: Campaign): Promise<Campaign> {
      return manager.save(row);
    },

    /** A draft never started becomes `cancelled`. */
    async markDraftCancelled(campaignId: number): Promise<void> {
      await manager.update(
        Campaign,
        { id: campaignId },
        { state: 'cancelled', completedAt: new Date(), updatedAt: new Date() },
      );
    },

    async markRedialed(campaignId: number, redialedCampaignId: number): Promise<void> {
      await manager.update(Campaign, { id: campaignId }, { redialedCampaignId, updatedAt: new Date() });
    },

    /** The attempt rows of a batch to screen, locked in phone number order, with their numbers. */
    async lockAttemptsToScreen(campaignId: number, attempts: AttemptKey[]): Promise<AttemptToScreen[]> {
      return manager.query<AttemptToScreen[]>(
        `SELECT a.id, a.contact_id::text, a.attempt_number, a.status, a.outcome, a.run_id, c.phone_number
             FROM campaign_attempts a
             JOIN jsonb_to_recordset($2::jsonb) AS x(contact_id bigint, attempt integer)
               ON x.contact_id = a.contact_id AND x.attempt = a.attempt_number
             JOIN campaign_contacts c ON c.id = a.contact_id
            WHERE a.campaign_id = $1
            ORDER BY c.phone_number, a.id
              FOR UPDATE OF a`,
        [campaignId, JSON.stringify(attempts.map(attemptRecord))],
      );
    },

    /** Finishes an attempt never dialed with `outcome`; false when it was finished already. */
    async finishUndialed(attemptId: number, outcome: string): Promise<boolean> {
      const finished = await manager.query<unknown[]>(
        `UPDATE campaign_attempts SET status = 'finished', outcome = $2, finished_at = now(), updated_at = now()
                WHERE id = $1 AND status <> 'finished' RETURNING id`,
        [attemptId, outcome],
      );
      return finished.length > 0;
    },

    /** Puts an attempt off until `allowedAt`; false when it was put off until then already. */
    async deferAttempt(attemptId: number, allowedAt: Date): Promise<boolean> {
      const deferred = await manager.query<unknown[]>(
        `UPDATE campaign_attempts SET scheduled_for = $2, updated_at = now()
                WHERE id = $1 AND scheduled_for IS DISTINCT FROM $2 RETURNING id`,
        [attemptId, allowedAt],
      );
      return deferred.length > 0;
    },

    /** Adds a screening's figures to the counters in one statement. */
    async addScreenedCounters(
      campaignId: number,
      add: { queued: number; skipped: number; capped: number },
    ): Promise<void> {
      await manager.query(
        `UPDATE campaigns SET total_queued_count = total_queued_count + $2, processed_rows = processed_rows + $3,
                  failed_rows = failed_rows + $3, dnc_skipped_count = dnc_skipped_count + $3,
                  frequency_capped_count = frequency_capped_count + $4, updated_at = now()
            WHERE id = $1`,
        [campaignId, add.queued, add.skipped, add.capped],
      );
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
