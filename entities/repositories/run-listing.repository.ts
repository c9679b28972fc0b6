import type { DataSource, EntityManager } from 'typeorm';
import type { SqlWhere } from '../../domain/runs/sql-where';
import type { RunDetail, RunsListRequest } from '../../domain/runs/types';
import { repositoryOver } from './repository';

/** A run as the runs lists, the run detail and the usage report read it. */
export interface RunListingRow extends Omit<RunDetail, 'created_at' | 'cost_info'> {
  created_at: Date;
  call_duration_seconds: number;
  platform_token_usage: number;
  /** The agent's name: usage rows only. */
  workflow_name: string;
}

/** The usage report's totals over every matching run. */
export interface UsageTotals {
  total: number;
  tokens: number;
  seconds: number;
  tool_calls: number;
}

const RUN_COLUMNS = `
  r.id, r.workflow_id, r.name, r.mode, r.created_at, r.is_completed, r.transcript_url, r.recording_url,
  r.definition_id, r.initial_context, r.gathered_context, r.logs, r.annotations, r.call_type, r.state,
  r.campaign_id, r.caller_number, r.called_number, r.disposition, r.usage_info, r.call_duration_seconds,
  r.platform_token_usage::float8 AS platform_token_usage, r.analysis_history`;

const SORT_COLUMNS: Record<RunsListRequest['sort_by'], string> = {
  created_at: 'r.created_at',
  duration: 'r.call_duration_seconds',
};

/**
 * The reads of the runs lists and the usage report, written by hand and tuned with the indexes
 * (`where` selects the runs: an agent's, a campaign's, an organization's in a date range).
 */
export function runListingStatements(manager: EntityManager) {
  return {
    /** Whether the agent is the organization's: the runs list's check before the list. */
    async isOrganizationAgent(organizationId: number, agentId: number): Promise<boolean> {
      const owned = await manager.query<unknown[]>('SELECT 1 FROM agents WHERE id = $1 AND organization_id = $2', [
        agentId,
        organizationId,
      ]);
      return owned.length > 0;
    },

    /** How many runs match. */
    async countRuns(where: SqlWhere): Promise<number> {
      const [counted] = await manager.query<{ total: number }[]>(
        `SELECT count(*)::int AS total FROM runs r WHERE ${where.sql}`,
        where.params,
      );
      return counted?.total ?? 0;
    },

    /** One page of the matching runs, in the order asked for (ties broken by id, the same way). */
    pageOfRuns(
      where: SqlWhere,
      order: Pick<RunsListRequest, 'sort_by' | 'sort_order'>,
      limit: number,
      offset: number,
    ): Promise<RunListingRow[]> {
      const direction = order.sort_order === 'asc' ? 'ASC' : 'DESC';
      const page = where.withExtra(limit, offset);
      return manager.query<RunListingRow[]>(
        `SELECT ${RUN_COLUMNS} FROM runs r WHERE ${where.sql}
        ORDER BY ${SORT_COLUMNS[order.sort_by]} ${direction}, r.id ${direction} LIMIT ${page.placeholders[0]} OFFSET ${page.placeholders[1]}`,
        page.params,
      );
    },

    /** The organization's run of that agent; null otherwise. */
    async runOfAgent(organizationId: number, agentId: number, runId: number): Promise<RunListingRow | null> {
      const [row] = await manager.query<RunListingRow[]>(
        `SELECT ${RUN_COLUMNS} FROM runs r WHERE r.id = $1 AND r.workflow_id = $2 AND r.organization_id = $3`,
        [runId, agentId, organizationId],
      );
      return row ?? null;
    },

    /** The usage report's totals over every matching run; undefined when the statement answers no row. */
    async usageTotals(where: SqlWhere): Promise<UsageTotals | undefined> {
      const [totals] = await manager.query<UsageTotals[]>(
        `SELECT count(*)::int AS total, coalesce(sum(r.platform_token_usage), 0)::float8 AS tokens,
              coalesce(sum(r.call_duration_seconds), 0)::float8 AS seconds,
              coalesce(sum((r.usage_info -> 'tool_calls' ->> 'total')::int), 0)::int AS tool_calls
         FROM runs r WHERE ${where.sql}`,
        where.params,
      );
      return totals;
    },

    /** One page of the usage report's runs with their agent's name, newest first. */
    usagePage(where: SqlWhere, limit: number, offset: number): Promise<RunListingRow[]> {
      const page = where.withExtra(limit, offset);
      return manager.query<RunListingRow[]>(
        `SELECT ${RUN_COLUMNS}, a.name AS workflow_name
         FROM runs r JOIN agents a ON a.id = r.workflow_id
        WHERE ${where.sql}
        ORDER BY r.created_at DESC, r.id DESC LIMIT ${page.placeholders[0]} OFFSET ${page.placeholders[1]}`,
        page.params,
      );
    },
  };
}

export const createRunListingRepository = (dataSource: DataSource) => repositoryOver(dataSource, runListingStatements);

export type RunListingRepository = ReturnType<typeof createRunListingRepository>;
