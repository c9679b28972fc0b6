/**
 * The runs lists and details as the domain answers them: the API's response schemas
 * (api/schemas/runs.ts) document these shapes, and the API's build checks that they agree.
 */

/** Paging every list takes: `page` from 1, `limit` rows a page. */
export interface PageRequest {
  page: number;
  limit: number;
}

/** An agent's or a campaign's runs: `filters` as JSON text, and the order. */
export interface RunsListRequest extends PageRequest {
  filters?: string;
  sort_by: 'created_at' | 'duration';
  sort_order: 'asc' | 'desc';
}

/** The organization's usage: runs created between the two instants (ISO 8601, UTC), both inclusive. */
export interface UsageRunsRequest extends PageRequest {
  start_date?: string;
  end_date?: string;
  filters?: string;
}

export interface CostInfo {
  platform_token_usage: number;
  call_duration_seconds: number;
  charge_usd: number;
}

type JsonObject = Record<string, unknown>;

export interface RunItem {
  id: number;
  /** The agent (the interface's name). */
  workflow_id: number;
  name: string;
  /** The provider (the interface's name). */
  mode: string;
  created_at: string;
  is_completed: boolean;
  transcript_url: string | null;
  recording_url: string | null;
  cost_info: CostInfo;
  /** The agent version the run executed. */
  definition_id: number;
  initial_context: JsonObject;
  gathered_context: JsonObject;
  logs: JsonObject;
  annotations: JsonObject;
}

/** How a transfer attempt ended: `joined` when the person answered and took the caller. */
/** The disposition of a call handed to a person. */
export const TRANSFERRED = 'transferred';

export const TRANSFER_OUTCOMES = ['joined', 'busy', 'no-answer', 'failed', 'canceled'] as const;
export type TransferOutcome = (typeof TRANSFER_OUTCOMES)[number];

/** One transfer attempt of a call, as the run keeps it (`logs.transfers`; the last one is the run's `transfer`). */
export interface RunTransfer {
  /** Masked like the run's numbers in logs: the first three and last two characters. */
  destination: string;
  mode: 'blind' | 'warm';
  outcome: TransferOutcome;
  /** Seconds from the start of the transfer to its answer or failure. */
  ring_seconds: number;
  /** ISO time the transfer started. */
  started_at: string;
  /** Why it did not connect, as the model was told; absent when joined. */
  reason?: string;
}

export interface RunDetail extends RunItem {
  call_type: 'inbound' | 'outbound';
  state: 'initialized' | 'running' | 'completed';
  campaign_id: number | null;
  caller_number: string | null;
  called_number: string | null;
  disposition: string | null;
  usage_info: JsonObject;
  /** The analyses a rerun replaced, oldest first: each the `annotations` keys it had written. */
  analysis_history: JsonObject[];
  /** The call's last transfer attempt; null when it tried none. */
  transfer: RunTransfer | null;
}

/** A filter as it was understood and applied. */
export interface AppliedFilter {
  attribute: string;
  type: string;
  value: unknown;
}

export interface RunsPage {
  runs: RunItem[];
  total_count: number;
  page: number;
  limit: number;
  total_pages: number;
  /** Null when no filters were sent. */
  applied_filters: AppliedFilter[] | null;
}

export interface UsageRunItem {
  id: number;
  workflow_id: number;
  workflow_name: string;
  name: string;
  created_at: string;
  platform_token_usage: number;
  call_duration_seconds: number;
  recording_url: string | null;
  transcript_url: string | null;
  /** The other party: the called number outbound, the caller inbound. */
  phone_number: string | null;
  caller_number: string | null;
  called_number: string | null;
  call_type: 'inbound' | 'outbound';
  mode: string;
  disposition: string | null;
  initial_context: JsonObject;
  gathered_context: JsonObject;
  charge_usd: number;
  /** The tool calls the run's agent made (`usage_info.tool_calls.total`). */
  tool_calls: number;
}

export interface UsageRunsPage {
  runs: UsageRunItem[];
  /** Over every matching run, not just the page. */
  total_dograh_tokens: number;
  total_duration_seconds: number;
  total_tool_calls: number;
  total_count: number;
  page: number;
  limit: number;
  total_pages: number;
}
