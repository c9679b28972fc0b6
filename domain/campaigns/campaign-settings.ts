import type { Campaign } from '../../entities';
import {
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_RETRY_CONFIG,
  DEFAULT_VOICEMAIL_ACTION,
  type CampaignFallbackRoute,
  type CampaignSettings,
  type CircuitBreakerConfig,
  type RetryConfig,
  type ScheduleConfig,
  type VoicemailAction,
} from './settings';

/** Settings as a client sends them: a create fills in what is missing, an update changes what is present. */
export interface SettingsRequest {
  name?: string;
  max_concurrency?: number;
  retry_config?: Partial<RetryConfig>;
  schedule_config?: ScheduleConfig | null;
  circuit_breaker?: Partial<CircuitBreakerConfig>;
  voicemail_action?: VoicemailAction;
  /** null: no fallback (a PATCH removes it). */
  fallback_telephony_configuration_id?: number | null;
  /** Only with a fallback: the caller number on it (null or left out: its default caller id). */
  fallback_caller_number?: string | null;
}

/** The fallback route a body names, when it names the configuration (null: none). */
function fallbackOf(body: SettingsRequest): CampaignFallbackRoute | null | undefined {
  if (body.fallback_telephony_configuration_id === undefined) return undefined;
  if (body.fallback_telephony_configuration_id === null) return null;
  return {
    telephony_configuration_id: body.fallback_telephony_configuration_id,
    caller_number: body.fallback_caller_number ?? null,
  };
}

/** A create body's settings with the decided defaults filled in. */
export function settingsForCreate(body: SettingsRequest & { name: string }): CampaignSettings {
  return {
    name: body.name,
    max_concurrency: body.max_concurrency ?? DEFAULT_MAX_CONCURRENCY,
    retry_config: { ...DEFAULT_RETRY_CONFIG, ...body.retry_config },
    schedule_config: body.schedule_config ?? null,
    circuit_breaker: { ...DEFAULT_CIRCUIT_BREAKER, ...body.circuit_breaker },
    voicemail_action: body.voicemail_action ?? DEFAULT_VOICEMAIL_ACTION,
    fallback: fallbackOf(body) ?? null,
  };
}

/** The stored settings of a campaign row. */
export function settingsOf(row: Campaign): CampaignSettings {
  return {
    name: row.name,
    max_concurrency: row.maxConcurrency,
    retry_config: { ...DEFAULT_RETRY_CONFIG, ...(row.retryConfig as Partial<RetryConfig>) },
    schedule_config: row.scheduleConfig as ScheduleConfig | null,
    circuit_breaker: { ...DEFAULT_CIRCUIT_BREAKER, ...(row.circuitBreaker as Partial<CircuitBreakerConfig>) },
    voicemail_action: row.voicemailAction,
    fallback:
      row.fallbackTelephonyConfigurationId === null
        ? null
        : { telephony_configuration_id: row.fallbackTelephonyConfigurationId, caller_number: row.fallbackCallerNumber },
  };
}

/**
 * The settings a PATCH changes, complete: `retry_config` and `circuit_breaker` are merged over the
 * stored values, `schedule_config` is replaced (null removes it), and so is the fallback (its
 * configuration and caller number together; a caller number alone changes the current fallback's).
 * Fields the body leaves out are absent.
 */
export function settingsChange(current: CampaignSettings, body: SettingsRequest): Partial<CampaignSettings> {
  const change: Partial<CampaignSettings> = {};
  if (body.name !== undefined) change.name = body.name;
  if (body.max_concurrency !== undefined) change.max_concurrency = body.max_concurrency;
  if (body.retry_config !== undefined) change.retry_config = { ...current.retry_config, ...body.retry_config };
  if (body.schedule_config !== undefined) change.schedule_config = body.schedule_config;
  if (body.circuit_breaker !== undefined) {
    change.circuit_breaker = { ...current.circuit_breaker, ...body.circuit_breaker };
  }
  if (body.voicemail_action !== undefined) change.voicemail_action = body.voicemail_action;
  const fallback = fallbackOf(body);
  if (fallback !== undefined) change.fallback = fallback;
  else if (body.fallback_caller_number !== undefined && current.fallback) {
    change.fallback = { ...current.fallback, caller_number: body.fallback_caller_number };
  }
  return change;
}

/** The entity columns of (part of) a campaign's settings. */
export function settingsColumns(settings: Partial<CampaignSettings>): Partial<Campaign> {
  const columns: Partial<Campaign> = {};
  if (settings.name !== undefined) columns.name = settings.name;
  if (settings.max_concurrency !== undefined) columns.maxConcurrency = settings.max_concurrency;
  if (settings.retry_config !== undefined) columns.retryConfig = { ...settings.retry_config };
  if (settings.schedule_config !== undefined) {
    columns.scheduleConfig = settings.schedule_config ? { ...settings.schedule_config } : null;
  }
  if (settings.circuit_breaker !== undefined) columns.circuitBreaker = { ...settings.circuit_breaker };
  if (settings.voicemail_action !== undefined) columns.voicemailAction = settings.voicemail_action;
  if (settings.fallback !== undefined) {
    columns.fallbackTelephonyConfigurationId = settings.fallback?.telephony_configuration_id ?? null;
    columns.fallbackCallerNumber = settings.fallback?.caller_number ?? null;
  }
  return columns;
}
