import type { DataSource, EntityManager } from 'typeorm';
import { repositoryOver } from './repository';

/**
 * What erasing a run clears: the numbers, contexts, logs (the transcript and the analysis live
 * there), annotations and their history of analyses, and the links to the recording and transcript. Duration, tokens, charge,
 * cost and usage stay, so the usage report still sums; `erased_at` records when.
 */
const ERASE_RUN_SET = `
  caller_number = NULL, called_number = NULL, initial_context = '{}', gathered_context = '{}',
  logs = '{}', annotations = '{}', analysis_history = '[]', recording_url = NULL, transcript_url = NULL,
  erased_at = coalesce(erased_at, now()), updated_at = now()`;

/** A run still on the line: its call would write back what was erased. */
const RUN_IN_PROGRESS = `state = 'running'`;

/** A run as its deletion checks it. */
export interface RunToErase {
  state: string;
  recording_url: string | null;
}

/** A run past its organization's retention. */
export interface ExpiredRun {
  id: number;
  organization_id: number;
}

/**
 * The deletions and erasures that cross aggregates: contact lists with their contacts, finished
 * campaigns, runs' personal data and recordings, a person's data by phone number, and each
 * organization's retention.
 */
export function dataLifecycleStatements(manager: EntityManager) {
  return {
    /** Locks the organization's contact list; false when it is missing or another organization's. */
    async lockContactList(organizationId: number, sourceId: string): Promise<boolean> {
      const [source] = await manager.query<unknown[]>(
        `SELECT 1 FROM campaign_sources WHERE id = $1 AND organization_id = $2 FOR UPDATE`,
        [sourceId, organizationId],
      );
      return source !== undefined;
    },

    /** The campaigns over the list not in one of `finishedStates`, locked, by id. */
    lockUnfinishedCampaignsOf(
      sourceId: string,
      finishedStates: readonly string[],
    ): Promise<{ id: number; state: string }[]> {
      return manager.query<{ id: number; state: string }[]>(
        `SELECT id, state FROM campaigns WHERE source_id = $1 AND state <> ALL($2) ORDER BY id FOR UPDATE`,
        [sourceId, finishedStates],
      );
    },

    /** Deletes the list; its contacts (and their attempts) go with it. */
    async deleteContactList(sourceId: string): Promise<void> {
      await manager.query(`DELETE FROM campaign_sources WHERE id = $1`, [sourceId]);
    },

    /** The state of the organization's campaign, locked; null when it is missing or another organization's. */
    async lockCampaignState(organizationId: number, campaignId: number): Promise<string | null> {
      const [campaign] = await manager.query<{ state: string }[]>(
        `SELECT state FROM campaigns WHERE id = $1 AND organization_id = $2 FOR UPDATE`,
        [campaignId, organizationId],
      );
      return campaign?.state ?? null;
    },

    /** Deletes the campaign with its attempts and logs. */
    async deleteCampaign(campaignId: number): Promise<void> {
      await manager.query(`DELETE FROM campaigns WHERE id = $1`, [campaignId]);
    },

    /** The run of the organization's agent; null otherwise. */
    async runToErase(organizationId: number, agentId: number, runId: number): Promise<RunToErase | null> {
      const [run] = await manager.query<RunToErase[]>(
        `SELECT state, recording_url FROM runs WHERE id = $1 AND workflow_id = $2 AND organization_id = $3`,
        [runId, agentId, organizationId],
      );
      return run ?? null;
    },

    /** Of the given runs of the organization, those with a recording. */
    async runsWithRecording(organizationId: number, runIds: number[]): Promise<number[]> {
      const rows = await manager.query<{ id: number }[]>(
        `SELECT id FROM runs WHERE organization_id = $1 AND id = ANY($2) AND recording_url IS NOT NULL`,
        [organizationId, runIds],
      );
      return rows.map((row) => row.id);
    },

    /** Clears the runs' personal data (ERASE_RUN_SET); answers how many rows it erased. */
    async eraseRunRows(organizationId: number, runIds: number[]): Promise<number> {
      const [, erased] = await manager.query<[unknown, number]>(
        `UPDATE runs SET ${ERASE_RUN_SET} WHERE organization_id = $1 AND id = ANY($2)`,
        [organizationId, runIds],
      );
      return erased;
    },

    /** The run no longer links to a recording. */
    async unlinkRecording(organizationId: number, runId: number): Promise<void> {
      await manager.query(
        `UPDATE runs SET recording_url = NULL, updated_at = now() WHERE organization_id = $1 AND id = $2`,
        [organizationId, runId],
      );
    },

    /**
     * Deletes the organization's contacts with one of the numbers (and their attempts), through each
     * list's contact id range, as lists are read: the contacts table has no number index.
     */
    async deleteContactsWithNumbers(organizationId: number, numbers: string[]): Promise<number> {
      const [, deleted] = await manager.query<[unknown, number]>(
        `DELETE FROM campaign_contacts c USING campaign_sources s
      WHERE s.organization_id = $1 AND c.id BETWEEN s.first_contact_id AND s.last_contact_id
        AND c.source_id = s.id AND c.phone_number = ANY($2)`,
        [organizationId, numbers],
      );
      return deleted;
    },

    /** Up to `limit` of the organization's runs from or to one of the numbers not on the line, by id. */
    async endedRunsWithNumbers(organizationId: number, numbers: string[], limit: number): Promise<number[]> {
      const rows = await manager.query<{ id: number }[]>(
        `SELECT id FROM runs
        WHERE organization_id = $1 AND (caller_number = ANY($2) OR called_number = ANY($2)) AND NOT ${RUN_IN_PROGRESS}
        ORDER BY id LIMIT $3`,
        [organizationId, numbers, limit],
      );
      return rows.map((row) => row.id);
    },

    /**
     * After the numbers' erasure: how many runs still hold them (those on the line) and whether one
     * is on the do-not-call list.
     */
    async numbersLeft(organizationId: number, numbers: string[]): Promise<{ in_progress: number; listed: boolean }> {
      const [counts] = await manager.query<{ in_progress: number; listed: boolean }[]>(
        `SELECT (SELECT count(*)::int FROM runs WHERE organization_id = $1
               AND (caller_number = ANY($2) OR called_number = ANY($2))) AS in_progress,
            EXISTS (SELECT 1 FROM do_not_call_numbers WHERE organization_id = $1 AND phone_number = ANY($2)) AS listed`,
        [organizationId, numbers],
      );
      return { in_progress: counts?.in_progress ?? 0, listed: counts?.listed ?? false };
    },

    async retentionDays(organizationId: number): Promise<number | null> {
      const [row] = await manager.query<{ retention_days: number | null }[]>(
        `SELECT retention_days FROM organizations WHERE id = $1`,
        [organizationId],
      );
      return row?.retention_days ?? null;
    },

    async setRetentionDays(organizationId: number, retentionDays: number | null): Promise<void> {
      await manager.query(`UPDATE organizations SET retention_days = $2, updated_at = now() WHERE id = $1`, [
        organizationId,
        retentionDays,
      ]);
    },

    /**
     * Up to `limit` runs, across organizations, older than their organization's retention and not on
     * the line, oldest first, claimed with SKIP LOCKED (in a transaction: two sweeps never claim the same run).
     */
    claimExpiredRuns(limit: number): Promise<ExpiredRun[]> {
      return manager.query<ExpiredRun[]>(
        `SELECT r.id, r.organization_id FROM organizations o
         JOIN runs r ON r.organization_id = o.id AND r.erased_at IS NULL
                    AND r.created_at < now() - make_interval(days => o.retention_days)
        WHERE o.retention_days IS NOT NULL AND NOT r.${RUN_IN_PROGRESS}
        ORDER BY r.created_at LIMIT $1 FOR UPDATE OF r SKIP LOCKED`,
        [limit],
      );
    },
  };
}

export type DataLifecycleStatements = ReturnType<typeof dataLifecycleStatements>;

export const createDataLifecycleRepository = (dataSource: DataSource) =>
  repositoryOver(dataSource, dataLifecycleStatements);

export type DataLifecycleRepository = ReturnType<typeof createDataLifecycleRepository>;
