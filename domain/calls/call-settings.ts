import type { LlmSettings } from '../../agent-runtime/contract';
import { dialRulesFrom, type DialRules } from '../compliance/dial-rules';
import type { Config } from '../../platform/config';
import type { Secrets } from '../../telephony/secrets';
import { answerUrls } from '../../telephony/inbound';

/** What the call activities read from the configuration. */
export interface CallSettings {
  /** The origin providers call back (`PUBLIC_BASE_URL`). */
  publicBaseUrl: string;
  /** Sends provider API requests to a mock server (`TELEPHONY_API_BASE_URL`). */
  telephonyApiBaseUrl?: string;
  /** `ALLOW_PRIVATE_ARI_ENDPOINTS`. */
  allowPrivateAriEndpoints?: boolean;
  /** `ALLOW_PRIVATE_WEBHOOKS`: tools may reach private addresses too. */
  allowPrivateWebhooks?: boolean;
  /** Unset: the conversation engine's offline policy. */
  llm?: LlmSettings;
  pricePerMinuteUsd: number;
  pricePer1kTokensUsd: number;
  /** Checked before every dial; unset: the do-not-call list only, no frequency caps. */
  dialRules?: DialRules;
}

export function callSettingsFrom(config: Config): CallSettings {
  const llmConfigured = Boolean(config.LLM_BASE_URL ?? config.LLM_API_KEY);
  return {
    publicBaseUrl: config.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    telephonyApiBaseUrl: config.TELEPHONY_API_BASE_URL,
    allowPrivateAriEndpoints: config.ALLOW_PRIVATE_ARI_ENDPOINTS,
    allowPrivateWebhooks: config.ALLOW_PRIVATE_WEBHOOKS,
    llm: llmConfigured
      ? { baseUrl: config.LLM_BASE_URL, apiKey: config.LLM_API_KEY, model: config.LLM_MODEL }
      : undefined,
    pricePerMinuteUsd: config.PRICE_PER_MINUTE_USD,
    pricePer1kTokensUsd: config.PRICE_PER_1K_TOKENS_USD,
    dialRules: dialRulesFrom(config),
  };
}

/** The provider-facing URLs of a run's call; the media URL carries a token bound to the provider and run. */
export function callUrls(settings: CallSettings, provider: string, runId: number, secrets: Pick<Secrets, 'deriveKey'>) {
  return answerUrls(settings.publicBaseUrl, provider, runId, secrets);
}

/**
 * Where a run's transcript is served (authenticated), as PostgreSQL's `format()` takes it: the
 * agent's id, then the run's, so that the statement finalizing a run fills it in from the row.
 */
export const TRANSCRIPT_URL_FORMAT = '/api/v1/workflow/%1$s/runs/%2$s/transcript';
