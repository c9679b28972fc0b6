import type { DataSource } from 'typeorm';
import {
  createRunListingRepository,
  type RunListingRow as RunRow,
} from '../../entities/repositories/run-listing.repository';
import type { Actor } from '../actor';
import { NotFoundError } from '../errors';
import { workflowNotFound } from '../agents/agent-versions';
import { applyFilters, filterSet } from './run-filters';
import { SqlWhere } from './sql-where';
import type {
  RunDetail,
  RunTransfer,
  RunItem,
  RunsListRequest,
  RunsPage,
  UsageRunItem,
  UsageRunsPage,
  UsageRunsRequest,
} from './types';

export interface Prices {
  perMinuteUsd: number;
  per1kTokensUsd: number;
}

/** minutes × price per minute + tokens / 1000 × price per 1k tokens, to a millionth of a dollar. */
export const chargeUsd = (seconds: number, tokens: number, prices: Prices): number =>
  Math.round(((seconds / 60) * prices.perMinuteUsd + (tokens / 1000) * prices.per1kTokensUsd) * 1e6) / 1e6;

const ANALYSIS_FILTERS = [
  'analysisTags',
  'analysisSentiment',
  'analysisSuccess',
  'analysisScore',
  'analysisField',
] as const;
const WORKFLOW_RUN_FILTERS = filterSet([
  'dateRange',
  'dispositionCode',
  'duration',
  'status',
  'runId',
  'campaignId',
  'callerNumber',
  'calledNumber',
  ...ANALYSIS_FILTERS,
]);
const USAGE_RUN_FILTERS = filterSet([
  'runId',
  'workflowId',
  'campaignId',
  'callerNumber',
  'calledNumber',
  'dispositionCode',
  'duration',
  ...ANALYSIS_FILTERS,
]);

const workflowRunItem = (row: RunRow, prices: Prices): RunItem => ({
  id: row.id,
  workflow_id: row.workflow_id,
  name: row.name,
  mode: row.mode,
  created_at: row.created_at.toISOString(),
  is_completed: row.is_completed,
  transcript_url: row.transcript_url,
  recording_url: row.recording_url,
  cost_info: {
    platform_token_usage: row.platform_token_usage,
    call_duration_seconds: row.call_duration_seconds,
    charge_usd: chargeUsd(row.call_duration_seconds, row.platform_token_usage, prices),
  },
  definition_id: row.definition_id,
  initial_context: row.initial_context,
  gathered_context: row.gathered_context,
  logs: row.logs,
  annotations: row.annotations,
});

const usageRunItem = (row: RunRow, prices: Prices): UsageRunItem => ({
  id: row.id,
  workflow_id: row.workflow_id,
  workflow_name: row.workflow_name,
  name: row.name,
  created_at: row.created_at.toISOString(),
  platform_token_usage: row.platform_token_usage,
  call_duration_seconds: row.call_duration_seconds,
  recording_url: row.recording_url,
  transcript_url: row.transcript_url,
  phone_number: row.call_type === 'inbound' ? row.caller_number : row.called_number,
  caller_number: row.caller_number,
  called_number: row.called_number,
  call_type: row.call_type,
  mode: row.mode,
  disposition: row.disposition,
  initial_context: row.initial_context,
  gathered_context: row.gathered_context,
  charge_usd: chargeUsd(row.call_duration_seconds, row.platform_token_usage, prices),
  tool_calls: toolCallsOf(row.usage_info),
});

/** `usage_info.tool_calls.total`; 0 for runs without tools (or from before tools were counted). */
const toolCallsOf = (usage: Record<string, unknown> | null): number => {
  const total = (usage?.tool_calls as { total?: unknown } | undefined)?.total;
  return typeof total === 'number' ? total : 0;
};

const totalPages = (count: number, limit: number) => Math.ceil(count / limit);

/** One page of an agent's runs, with the filters and order the query asks for. */
export async function workflowRunsPage(
  dataSource: DataSource,
  caller: Actor,
  workflowId: number,
  query: RunsListRequest,
  prices: Prices,
): Promise<RunsPage> {
  const owned = await createRunListingRepository(dataSource).isOrganizationAgent(caller.organizationId, workflowId);
  if (!owned) throw workflowNotFound(workflowId);
  // The agent is the caller's, so its runs are too: the workflow index alone serves the list.
  return runsPage(dataSource, new SqlWhere().add('r.workflow_id = ?', workflowId), query, prices);
}

/** The runs list of an agent or a campaign (`where` selects the runs): filters, order, one page. */
export async function runsPage(
  dataSource: DataSource,
  where: SqlWhere,
  query: RunsListRequest,
  prices: Prices,
): Promise<RunsPage> {
  const applied = applyFilters(query.filters, WORKFLOW_RUN_FILTERS, where, 'Invalid filters format');
  const runs = createRunListingRepository(dataSource);
  const [total, rows] = await Promise.all([
    runs.countRuns(where),
    runs.pageOfRuns(where, query, query.limit, (query.page - 1) * query.limit),
  ]);
  return {
    runs: rows.map((row) => workflowRunItem(row, prices)),
    total_count: total,
    page: query.page,
    limit: query.limit,
    total_pages: totalPages(total, query.limit),
    applied_filters: applied,
  };
}

/** One run of one of the caller's agents; 404 "Workflow run not found" otherwise. */
export async function workflowRunDetail(
  dataSource: DataSource,
  caller: Actor,
  workflowId: number,
  runId: number,
  prices: Prices,
): Promise<RunDetail> {
  const row = await createRunListingRepository(dataSource).runOfAgent(caller.organizationId, workflowId, runId);
  if (!row) throw new NotFoundError('Workflow run not found');
  return {
    ...workflowRunItem(row, prices),
    call_type: row.call_type,
    state: row.state,
    campaign_id: row.campaign_id,
    caller_number: row.caller_number,
    called_number: row.called_number,
    disposition: row.disposition,
    usage_info: row.usage_info,
    analysis_history: row.analysis_history,
    transfer: lastTransfer(row.logs),
  };
}

/** The last of a run's transfer attempts (`logs.transfers`), if it tried any. */
function lastTransfer(logs: Record<string, unknown>): RunTransfer | null {
  const transfers = logs.transfers;
  return Array.isArray(transfers) && transfers.length > 0 ? (transfers.at(-1) as RunTransfer) : null;
}

/** The conditions of the usage report's runs: the organization's, in the dates, matching the filters. */
export function usageRunsWhere(
  organizationId: number,
  query: Pick<UsageRunsRequest, 'start_date' | 'end_date' | 'filters'>,
): SqlWhere {
  const where = new SqlWhere().add('r.organization_id = ?', organizationId);
  if (query.start_date) where.add('r.created_at >= ?::timestamptz', query.start_date);
  if (query.end_date) where.add('r.created_at <= ?::timestamptz', query.end_date);
  applyFilters(query.filters, USAGE_RUN_FILTERS, where, 'Invalid filters format');
  return where;
}

/**
 * The organization's runs between `start_date` and `end_date` (both inclusive), newest first, with
 * totals over every matching run rather than the page.
 */
export async function usageRunsPage(
  dataSource: DataSource,
  caller: Actor,
  query: UsageRunsRequest,
  prices: Prices,
): Promise<UsageRunsPage> {
  const where = usageRunsWhere(caller.organizationId, query);
  const runs = createRunListingRepository(dataSource);
  const offset = (query.page - 1) * query.limit;
  const [totals, rows] = await Promise.all([runs.usageTotals(where), runs.usagePage(where, query.limit, offset)]);
  const total = totals?.total ?? 0;
  return {
    runs: rows.map((row) => usageRunItem(row, prices)),
    total_dograh_tokens: totals?.tokens ?? 0,
    total_duration_seconds: totals?.seconds ?? 0,
    total_tool_calls: totals?.tool_calls ?? 0,
    total_count: total,
    page: query.page,
    limit: query.limit,
    total_pages: totalPages(total, query.limit),
  };
}
