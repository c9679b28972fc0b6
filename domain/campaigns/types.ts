import type { CampaignState, CircuitBreakerConfig, RetryConfig, ScheduleConfig, VoicemailAction } from './settings';
import type { PageRequest } from '../runs/types';

/**
 * Campaigns as the domain answers them: the API's response schemas (api/schemas/campaigns.ts)
 * document these shapes, and the API's build checks that they agree.
 */

export interface CampaignListRequest extends PageRequest {
  state?: CampaignState;
}

export interface CampaignLogView {
  ts: string;
  level: string;
  event: string;
  message: string;
  details: Record<string, unknown>;
}

export interface CampaignView {
  id: number;
  name: string;
  /** The agent (the interface's name). */
  workflow_id: number;
  workflow_name: string;
  state: CampaignState;
  source_type: string;
  /** Null once the contact list was deleted. */
  source_id: string | null;
  total_rows: number | null;
  processed_rows: number;
  failed_rows: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  retry_config: RetryConfig;
  max_concurrency: number | null;
  schedule_config: ScheduleConfig | null;
  circuit_breaker: CircuitBreakerConfig;
  executed_count: number;
  total_queued_count: number;
  /** Contacts never dialed: their number is on the do-not-call list. */
  dnc_skipped: number;
  /** Dials put off by a frequency cap. */
  frequency_capped: number;
  /** Contacts whose call was transferred to a person (also in processed_rows, as `completed`). */
  transferred: number;
  parent_campaign_id: number | null;
  redialed_campaign_id: number | null;
  telephony_configuration_id: number | null;
  telephony_configuration_name: string | null;
  fallback_telephony_configuration_id: number | null;
  fallback_caller_number: string | null;
  /** The configuration it dials through now: the fallback once it failed over. */
  active_telephony_configuration_id: number | null;
  failed_over_at: string | null;
  voicemail_action: VoicemailAction;
  logs: CampaignLogView[];
}

export interface CampaignProgressView {
  campaign_id: number;
  state: CampaignState;
  total_rows: number;
  processed_rows: number;
  failed_rows: number;
  executed_count: number;
  total_queued_count: number;
  in_flight: number;
  pending_retries: number;
  dnc_skipped: number;
  frequency_capped: number;
  /** Contacts whose call was transferred to a person (also in processed_rows, as `completed`). */
  transferred: number;
  /** Final outcomes by call status. */
  outcomes: Record<string, number>;
  progress_percentage: number;
  next_open_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  active_telephony_configuration_id: number | null;
  /** `workflow`: the running campaign's own query; `database`: the stored counters. */
  source: 'workflow' | 'database';
}

/** How a campaign's analysed calls went: the runs whose post-call analysis gave a result. */
export interface CampaignAnalysisView {
  analyzed_calls: number;
  /** Calls with a success evaluation, and how many of them succeeded. */
  evaluated_calls: number;
  successful_calls: number;
  /** successful_calls / evaluated_calls, to 0.001; null before any call was evaluated. */
  success_rate: number | null;
  sentiment: { positive: number; neutral: number; negative: number };
  /** The most frequent tags, most frequent first (ties by name). */
  top_tags: { tag: string; calls: number }[];
}
