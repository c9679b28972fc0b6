import { IANAZone } from 'luxon';
import { z } from 'zod';

/**
 * The bounds of a campaign's settings, shared by the REST schema and the `configureCampaign`
 * Update's validator, so the workflow refuses whatever the API would, whoever sends the Update.
 */
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

export const CLOCK_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/**
 * When a machine answers: speak the agent's voicemail message, hang up for good, or hang up and
 * retry as `retry_config.retry_on_voicemail` says.
 */
export const VOICEMAIL_ACTIONS = ['leave_message', 'hang_up', 'retry_later'] as const;
export type VoicemailAction = (typeof VOICEMAIL_ACTIONS)[number];

export const E164 = /^\+[1-9]\d{6,14}$/;

const int = (limits: { min: number; max: number }) => z.number().int().min(limits.min).max(limits.max);

const ScheduleSlot = z
  .object({
    day_of_week: z.number().int().min(0).max(6),
    start_time: z.string().regex(CLOCK_TIME),
    end_time: z.string().regex(CLOCK_TIME),
  })
  .strict()
  .refine((slot) => slot.start_time < slot.end_time, { message: 'start_time must be before end_time' });

/** A `configureCampaign` Update's argument: whole settings objects, as the API sends them after merging. */
export const CampaignSettingsChange = z
  .object({
    name: z.string().trim().min(1).max(CAMPAIGN_LIMITS.name.max),
    max_concurrency: int(CAMPAIGN_LIMITS.max_concurrency),
    retry_config: z
      .object({
        enabled: z.boolean(),
        max_retries: int(CAMPAIGN_LIMITS.max_retries),
        retry_delay_seconds: int(CAMPAIGN_LIMITS.retry_delay_seconds),
        retry_on_busy: z.boolean(),
        retry_on_no_answer: z.boolean(),
        retry_on_voicemail: z.boolean(),
      })
      .strict(),
    schedule_config: z
      .object({
        enabled: z.boolean(),
        timezone: z.string().refine((zone) => IANAZone.isValidZone(zone), 'Unknown IANA timezone'),
        slots: z.array(ScheduleSlot).min(CAMPAIGN_LIMITS.slots.min).max(CAMPAIGN_LIMITS.slots.max),
      })
      .strict()
      .nullable(),
    circuit_breaker: z
      .object({
        enabled: z.boolean(),
        failure_threshold: z
          .number()
          .gt(CAMPAIGN_LIMITS.failure_threshold.above)
          .max(CAMPAIGN_LIMITS.failure_threshold.max),
        window_seconds: int(CAMPAIGN_LIMITS.window_seconds),
        min_calls_in_window: int(CAMPAIGN_LIMITS.min_calls_in_window),
      })
      .strict(),
    voicemail_action: z.enum(VOICEMAIL_ACTIONS),
    fallback: z
      .object({
        telephony_configuration_id: z.number().int().positive(),
        caller_number: z.string().regex(E164).nullable(),
      })
      .strict()
      .nullable(),
  })
  .partial()
  .strict()
  .refine((change) => Object.keys(change).length > 0, { message: 'No setting to change' });

/** Why `change` is not a valid settings change, or null when it is. */
export function settingsChangeProblem(change: unknown): string | null {
  const result = CampaignSettingsChange.safeParse(change);
  if (result.success) return null;
  return result.error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'change'}: ${issue.message}`)
    .join('; ');
}
