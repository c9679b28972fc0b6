import type { Campaign } from '../../entities';
import type { CampaignSettings, CircuitBreakerConfig, RetryConfig, ScheduleConfig } from '../../workflows/definitions';
import { DEFAULT_CIRCUIT_BREAKER, DEFAULT_MAX_CONCURRENCY, DEFAULT_RETRY_CONFIG } from './campaign-defaults';

/** Settings as a client sends them: a create fills in what is missing, an update changes what is present. */
export interface SettingsRequest {
  name?: string;
  max_concurrency?: number;
  retry_config?: Partial<RetryConfig>;
  schedule_config?: ScheduleConfig | null;
  circuit_breaker?: Partial<CircuitBreakerConfig>;
}

/** A create body's settings with the decided defaults filled in. */
export function settingsForCreate(body: SettingsRequest & { name: string }): CampaignSettings {
  return {
    name: body.name,
    max_concurrency: body.max_concurrency ?? DEFAULT_MAX_CONCURRENCY,
    retry_config: { ...DEFAULT_RETRY_CONFIG, ...body.retry_config },
    schedule_config: body.schedule_config ?? null,
    circuit_breaker: { ...DEFAULT_CIRCUIT_BREAKER, ...body.circuit_breaker },
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
  };
}

/**
 * The settings a PATCH changes, complete: `retry_config` and `circuit_breaker` are merged over the
 * stored values, `schedule_config` is replaced (null removes it). Fields the body leaves out are absent.
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
  return columns;
}
