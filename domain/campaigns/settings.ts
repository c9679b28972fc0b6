import { IANAZone } from 'luxon';
import { z } from 'zod';

/**
 * A campaign's vocabulary: its states, its settings, their bounds, defaults and one schema. The
 * REST schemas (api/schemas/campaigns.ts) and the campaign workflow's `configureCampaign` Update
 * validator both build on it, so the workflow refuses whatever the API would, whoever sends the
 * Update. No side effects and no Node builtins: the workflow bundle imports it.
 */

export const CAMPAIGN_STATES = ['draft', 'running', 'paused', 'completed', 'failed', 'cancelled'] as const;
export type CampaignState = (typeof CAMPAIGN_STATES)[number];

/** States a campaign never leaves. */
export const TERMINAL_CAMPAIGN_STATES: readonly CampaignState[] = ['completed', 'failed', 'cancelled'];

export const isTerminalCampaignState = (state: CampaignState): boolean => TERMINAL_CAMPAIGN_STATES.includes(state);

/**
 * When a machine answers: speak the agent's voicemail message, hang up for good, or hang up and
 * retry as `retry_config.retry_on_voicemail` says.
 */
export const VOICEMAIL_ACTIONS = ['leave_message', 'hang_up', 'retry_later'] as const;
export type VoicemailAction = (typeof VOICEMAIL_ACTIONS)[number];

export const CAMPAIGN_LIMITS = {
  name: { max: 255 },
  max_concurrency: { min: 1, max: 100 },
  max_retries: { min: 0, max: 10 },
  retry_delay_seconds: { min: 1, max: 86_400 },
  failure_threshold: { above: 0, max: 1 },
  window_seconds: { min: 10, max: 3600 },
  min_calls_in_window: { min: 1, max: 1000 },
  slots: { min: 1, max: 50 },
} as const;

/** "HH:MM" on a 24-hour clock: such strings order as the times do. */
export const CLOCK_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/** A phone number in E.164. */
export const E164 = /^\+[1-9]\d{6,14}$/;

/** `retry_config`. */
export interface RetryConfig {
  enabled: boolean;
  max_retries: number;
  retry_delay_seconds: number;
  retry_on_busy: boolean;
  retry_on_no_answer: boolean;
  retry_on_voicemail: boolean;
}

/** `schedule_config.slots[]`: day 0 = Monday .. 6 = Sunday, times "HH:MM" in the schedule's timezone. */
export interface ScheduleSlot {
  day_of_week: number;
  start_time: string;
  end_time: string;
}

export interface ScheduleConfig {
  enabled: boolean;
  /** IANA name; a contact's own `timezone` column overrides it for that contact. */
  timezone: string;
  slots: ScheduleSlot[];
}

export interface CircuitBreakerConfig {
  enabled: boolean;
  failure_threshold: number;
  window_seconds: number;
  min_calls_in_window: number;
}

export interface CampaignFallbackRoute {
  telephony_configuration_id: number;
  /** E.164; null: the fallback configuration's default caller id. */
  caller_number: string | null;
}

/** What PATCH may change; applied by the workflow (while paused) or by the API (while draft). */
export interface CampaignSettings {
  name: string;
  max_concurrency: number;
  retry_config: RetryConfig;
  /** null: calls may be placed at any time. */
  schedule_config: ScheduleConfig | null;
  circuit_breaker: CircuitBreakerConfig;
  /** What a call a machine answered does. */
  voicemail_action: VoicemailAction;
  /** Where the calls go once the circuit breaker trips; null: the campaign pauses instead. */
  fallback: CampaignFallbackRoute | null;
}

/** What a create fills in where the body leaves a setting out. */
export const DEFAULT_RETRY_CONFIG: RetryConfig = {
  enabled: true,
  max_retries: 2,
  retry_delay_seconds: 120,
  retry_on_busy: true,
  retry_on_no_answer: true,
  retry_on_voicemail: true,
};
export const DEFAULT_CIRCUIT_BREAKER: CircuitBreakerConfig = {
  enabled: false,
  failure_threshold: 0.5,
  window_seconds: 120,
  min_calls_in_window: 5,
};
export const DEFAULT_MAX_CONCURRENCY = 10;
/** A machine's answer is retried as `retry_config.retry_on_voicemail` says unless the campaign asks otherwise. */
export const DEFAULT_VOICEMAIL_ACTION: VoicemailAction = 'retry_later';
export const DEFAULT_SCHEDULE = { enabled: true, timezone: 'UTC' } as const;

// The settings' fields, one schema each: the API adds its documentation and defaults around them.

const whole = (limits: { min: number; max: number }) => z.number().int().min(limits.min).max(limits.max);

export const MaxConcurrency = whole(CAMPAIGN_LIMITS.max_concurrency);

export const RetryConfigFields = {
  enabled: z.boolean(),
  max_retries: whole(CAMPAIGN_LIMITS.max_retries),
  retry_delay_seconds: whole(CAMPAIGN_LIMITS.retry_delay_seconds),
  retry_on_busy: z.boolean(),
  retry_on_no_answer: z.boolean(),
  retry_on_voicemail: z.boolean(),
};

export const CircuitBreakerFields = {
  enabled: z.boolean(),
  failure_threshold: z.number().gt(CAMPAIGN_LIMITS.failure_threshold.above).max(CAMPAIGN_LIMITS.failure_threshold.max),
  window_seconds: whole(CAMPAIGN_LIMITS.window_seconds),
  min_calls_in_window: whole(CAMPAIGN_LIMITS.min_calls_in_window),
};

export const DayOfWeek = z.number().int().min(0).max(6);
export const ClockTime = z.string().regex(CLOCK_TIME, 'Expected a time "HH:MM" (24-hour clock)');
export const TimeZone = z.string().refine((zone) => IANAZone.isValidZone(zone), 'Unknown IANA timezone');

/** A slot's start comes before its end; only well-formed times compare. */
export const slotInOrder = (slot: ScheduleSlot): boolean =>
  !(CLOCK_TIME.test(slot.start_time) && CLOCK_TIME.test(slot.end_time)) || slot.start_time < slot.end_time;
export const SLOT_ORDER_ISSUE = { message: 'start_time must be before end_time', path: ['end_time'] };

export const ScheduleSlotSchema = z
  .object({ day_of_week: DayOfWeek, start_time: ClockTime, end_time: ClockTime })
  .strict()
  .refine(slotInOrder, SLOT_ORDER_ISSUE);

export const ScheduleSlots = z.array(ScheduleSlotSchema).min(CAMPAIGN_LIMITS.slots.min).max(CAMPAIGN_LIMITS.slots.max);

export const CallerNumber = z
  .string()
  .regex(E164, { error: 'fallback_caller_number must be in E.164 format, for example +14155550100' });

export const VoicemailActionSchema = z.enum(VOICEMAIL_ACTIONS);

/** A campaign's complete settings, as the API stores them and sends them to the workflow. */
export const CampaignSettingsSchema = z
  .object({
    name: z.string().trim().min(1).max(CAMPAIGN_LIMITS.name.max),
    max_concurrency: MaxConcurrency,
    retry_config: z.object(RetryConfigFields).strict(),
    schedule_config: z.object({ enabled: z.boolean(), timezone: TimeZone, slots: ScheduleSlots }).strict().nullable(),
    circuit_breaker: z.object(CircuitBreakerFields).strict(),
    voicemail_action: VoicemailActionSchema,
    fallback: z
      .object({ telephony_configuration_id: z.number().int().positive(), caller_number: CallerNumber.nullable() })
      .strict()
      .nullable(),
  })
  .strict();

/** A `configureCampaign` Update's argument: whole settings objects, as the API sends them after merging. */
export const CampaignSettingsChange = CampaignSettingsSchema.partial().refine(
  (change) => Object.keys(change).length > 0,
  { message: 'No setting to change' },
);

/** Why `change` is not a valid settings change, or null when it is. */
export function settingsChangeProblem(change: unknown): string | null {
  const result = CampaignSettingsChange.safeParse(change);
  if (result.success) return null;
  return result.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'change'}: ${issue.message}`)
    .join('; ');
}
