import { z } from '../zod';
import { BodyId, DateTimeString, EXAMPLE_TIME, IdParam, name, PageQuery, text } from './common';
import { e164 } from '../../domain/campaigns/sources/phone-number';
import { WorkflowRunsQuery } from './runs';
import {
  E164,
  CAMPAIGN_LIMITS,
  CAMPAIGN_STATES,
  CircuitBreakerFields,
  ClockTime as ClockTimeSetting,
  DayOfWeek,
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_RETRY_CONFIG,
  DEFAULT_SCHEDULE,
  MaxConcurrency as MaxConcurrencySetting,
  RetryConfigFields,
  SLOT_ORDER_ISSUE,
  slotInOrder,
  TimeZone,
  VOICEMAIL_ACTIONS,
  VoicemailActionSchema,
} from '../../domain/campaigns/settings';
import { TOP_TAGS } from '../../domain/campaigns/campaign-analysis';
import type {
  CampaignAnalysisView,
  CampaignListRequest,
  CampaignProgressView,
  CampaignView,
} from '../../domain/campaigns/types';
import type { Documents, SameShape } from './common';

export const CampaignIdParams = z.object({ campaign_id: IdParam.openapi({ example: 4 }) });

// The settings' fields and bounds are the domain's (domain/campaigns/settings.ts), which the
// workflow's `configureCampaign` validator checks too; here they get their defaults and documentation.
// The domain's schemas may be built before `.openapi()` exists, so they are documented with zod's own `.meta()`.
const CampaignName = name(CAMPAIGN_LIMITS.name.max);
const MaxConcurrency = MaxConcurrencySetting.meta({ default: DEFAULT_MAX_CONCURRENCY });

const retry = RetryConfigFields;
/** Every field optional: a create fills the defaults, a PATCH merges over the stored values. */
export const RetryConfigInput = z
  .object({
    enabled: retry.enabled.optional().openapi({ default: DEFAULT_RETRY_CONFIG.enabled }),
    max_retries: retry.max_retries.optional().openapi({ default: DEFAULT_RETRY_CONFIG.max_retries }),
    retry_delay_seconds: retry.retry_delay_seconds
      .optional()
      .openapi({ default: DEFAULT_RETRY_CONFIG.retry_delay_seconds }),
    retry_on_busy: retry.retry_on_busy.optional().openapi({ default: DEFAULT_RETRY_CONFIG.retry_on_busy }),
    retry_on_no_answer: retry.retry_on_no_answer
      .optional()
      .openapi({ default: DEFAULT_RETRY_CONFIG.retry_on_no_answer }),
    retry_on_voicemail: retry.retry_on_voicemail
      .optional()
      .openapi({ default: DEFAULT_RETRY_CONFIG.retry_on_voicemail }),
  })
  .openapi('RetryConfigInput', { description: 'Retries of busy, no-answer and voicemail outcomes.' });

const breaker = CircuitBreakerFields;
export const CircuitBreakerInput = z
  .object({
    enabled: breaker.enabled.optional().openapi({ default: DEFAULT_CIRCUIT_BREAKER.enabled }),
    failure_threshold: breaker.failure_threshold.optional().openapi({
      default: DEFAULT_CIRCUIT_BREAKER.failure_threshold,
      description: 'Failure rate in (0, 1] that pauses the campaign.',
    }),
    window_seconds: breaker.window_seconds.optional().openapi({ default: DEFAULT_CIRCUIT_BREAKER.window_seconds }),
    min_calls_in_window: breaker.min_calls_in_window
      .optional()
      .openapi({ default: DEFAULT_CIRCUIT_BREAKER.min_calls_in_window }),
  })
  .openapi('CircuitBreakerInput', {
    description: 'Failures are `failed` and `error` outcomes and initiation failures.',
  });

const ClockTime = ClockTimeSetting.meta({ example: '09:00' });

export const ScheduleSlot = z
  .object({
    day_of_week: DayOfWeek.meta({ description: '0 = Monday .. 6 = Sunday.' }),
    start_time: ClockTime,
    end_time: ClockTime,
  })
  .refine(slotInOrder, SLOT_ORDER_ISSUE)
  .openapi('ScheduleSlot');

export const ScheduleConfigInput = z
  .object({
    enabled: z.boolean().default(DEFAULT_SCHEDULE.enabled),
    timezone: TimeZone.default(DEFAULT_SCHEDULE.timezone).openapi({
      example: 'America/New_York',
      description: "IANA name; a contact's `timezone` column overrides it.",
    }),
    slots: z.array(ScheduleSlot).min(CAMPAIGN_LIMITS.slots.min).max(CAMPAIGN_LIMITS.slots.max),
  })
  .openapi('ScheduleConfig', { description: 'Calling windows; without one, calls are placed at any time.' });

/** `time_slots` is not part of the interface: refusing it keeps a schedule from being dropped. */
const TimeSlotsRejected = z
  .unknown()
  .refine((value) => value === undefined, {
    error: 'time_slots is not accepted: send the calling windows as schedule_config.slots',
  })
  .optional()
  // JSON Schema's "nothing is valid here": clients generate `never` for it.
  .openapi({ not: {}, description: 'Never accepted (422): send the calling windows as `schedule_config.slots`.' });

const CallerNumber = text(64)
  // Compared with the fallback's numbers, which are stored in E.164: a formatted number is taken in that
  // form (here, not in the domain's rule: workflow code reads that, and carries no numbering plans).
  .overwrite((value) => e164(value) ?? value)
  .regex(E164, { error: 'fallback_caller_number must be in E.164 format, for example +14155550100' })
  .openapi({
    description: "The fallback's caller id: one of its active numbers (omitted: its default caller id).",
    example: '+14155550199',
  });

const VoicemailActionInput = VoicemailActionSchema.meta({
  description:
    "When a machine answers: `leave_message` speaks the agent's `voicemail_message` after the beep and ends the " +
    'call as `voicemail_left` (on a live call, once the media stream has played all of it; otherwise `voicemail`); ' +
    '`hang_up` hangs up for good; `retry_later` (default) hangs up and retries as ' +
    '`retry_config.retry_on_voicemail` says.',
  example: 'leave_message',
});

export const CreateCampaignRequest = z
  .object({
    name: CampaignName,
    workflow_id: BodyId.openapi({ description: 'The agent the campaign calls with.' }),
    source_type: z.literal('csv'),
    source_id: text(255).min(1).openapi({ description: 'The `source_id` of `POST /campaign/sources`.' }),
    telephony_configuration_id: BodyId.nullish().openapi({
      description: "Omitted: the organization's default outbound configuration.",
    }),
    fallback_telephony_configuration_id: BodyId.nullish().openapi({
      description:
        'Dialed through instead when the circuit breaker trips on the campaign configuration; the campaign pauses only when the fallback fails too.',
    }),
    fallback_caller_number: CallerNumber.nullish(),
    voicemail_action: VoicemailActionInput.optional(),
    retry_config: RetryConfigInput.optional(),
    max_concurrency: MaxConcurrency.optional(),
    schedule_config: ScheduleConfigInput.nullish(),
    circuit_breaker: CircuitBreakerInput.optional(),
    time_slots: TimeSlotsRejected,
  })
  .refine((body) => !body.fallback_caller_number || body.fallback_telephony_configuration_id, {
    message: 'fallback_caller_number needs fallback_telephony_configuration_id',
    path: ['fallback_caller_number'],
  })
  .openapi('CreateCampaignRequest', {
    example: {
      fallback_telephony_configuration_id: 3,
      fallback_caller_number: '+14155550199',
      voicemail_action: 'leave_message',
      name: 'March reminders',
      workflow_id: 12,
      source_type: 'csv',
      source_id: 'src_3f0c9a1e-6c2b-4f57-9a59-2f7f2f0b7c11',
      max_concurrency: 5,
      retry_config: { max_retries: 1, retry_on_voicemail: false },
      schedule_config: {
        timezone: 'America/New_York',
        slots: [{ day_of_week: 0, start_time: '09:00', end_time: '17:00' }],
      },
    },
  });
export type CreateCampaignRequest = z.output<typeof CreateCampaignRequest>;

export const UpdateCampaignRequest = z
  .object({
    name: CampaignName.optional(),
    retry_config: RetryConfigInput.optional().openapi({ description: 'Merged over the stored values.' }),
    max_concurrency: MaxConcurrency.optional(),
    schedule_config: ScheduleConfigInput.nullish().openapi({ description: 'Replaces the schedule; null removes it.' }),
    circuit_breaker: CircuitBreakerInput.optional().openapi({ description: 'Merged over the stored values.' }),
    fallback_telephony_configuration_id: BodyId.nullish().openapi({
      description:
        'Replaces the fallback, with `fallback_caller_number` (left out: its default caller id); null removes it. ' +
        'A new fallback (or none) re-arms the failover: a campaign that had failed over dials through its own ' +
        'configuration again on resume.',
    }),
    fallback_caller_number: CallerNumber.nullish().openapi({
      description:
        "Alone: changes the current fallback's caller number (null: its default caller id). With " +
        "`fallback_telephony_configuration_id`: the new fallback's.",
    }),
    voicemail_action: VoicemailActionInput.optional(),
    time_slots: TimeSlotsRejected,
  })
  .refine((body) => !(body.fallback_telephony_configuration_id === null && body.fallback_caller_number), {
    message: 'fallback_caller_number needs a fallback: fallback_telephony_configuration_id is null',
    path: ['fallback_caller_number'],
  })
  .openapi('UpdateCampaignRequest', {
    example: {
      max_concurrency: 3,
      circuit_breaker: { enabled: true, failure_threshold: 0.4 },
      fallback_telephony_configuration_id: 5,
      fallback_caller_number: '+14155550142',
      voicemail_action: 'hang_up',
    },
  });
export type UpdateCampaignRequest = z.output<typeof UpdateCampaignRequest>;

export const RedialCampaignRequest = z
  .object({
    name: CampaignName.optional().openapi({ description: 'Default: "<parent name> (Redial)".' }),
    retry_on_busy: z.boolean().default(true),
    retry_on_no_answer: z.boolean().default(true),
    retry_on_voicemail: z.boolean().default(true),
    retry_config: RetryConfigInput.optional().openapi({ description: "Default: the parent's." }),
  })
  .refine((body) => body.retry_on_busy || body.retry_on_no_answer || body.retry_on_voicemail, {
    message: 'At least one of retry_on_busy, retry_on_no_answer and retry_on_voicemail must be true',
  })
  .openapi('RedialCampaignRequest', { example: { name: 'March reminders (Redial)', retry_on_voicemail: false } });
export type RedialCampaignRequest = z.output<typeof RedialCampaignRequest>;

export const CampaignListQuery = PageQuery.extend({ state: z.enum(CAMPAIGN_STATES).optional() });

export const CampaignRunsQuery = WorkflowRunsQuery;

const RetryConfig = z.object({
  enabled: z.boolean(),
  max_retries: z.number().int(),
  retry_delay_seconds: z.number().int(),
  retry_on_busy: z.boolean(),
  retry_on_no_answer: z.boolean(),
  retry_on_voicemail: z.boolean(),
});
const CircuitBreaker = z.object({
  enabled: z.boolean(),
  failure_threshold: z.number(),
  window_seconds: z.number().int(),
  min_calls_in_window: z.number().int(),
});
const ScheduleConfig = z.object({
  enabled: z.boolean(),
  timezone: z.string(),
  slots: z.array(z.object({ day_of_week: z.number().int(), start_time: z.string(), end_time: z.string() })),
});

export const CampaignLogEntry = z
  .object({
    ts: DateTimeString,
    level: z.string(),
    event: z.string().openapi({
      description:
        'campaign_started, campaign_paused, campaign_resumed, campaign_cancelled, campaign_completed, ' +
        'campaign_failed, config_updated, waiting_for_schedule_window, circuit_breaker_tripped, provider_failover, ' +
        'call_initiation_failed, dnc_skipped (details: contact_id, attempt), frequency_capped (details: contact_id, ' +
        'attempt, allowed_at, per_day, per_week)',
    }),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  })
  .openapi('CampaignLogEntry');

const EXAMPLE_CAMPAIGN = {
  id: 4,
  name: 'March reminders',
  workflow_id: 12,
  workflow_name: 'Appointment reminder',
  state: 'running',
  source_type: 'csv',
  source_id: 'src_3f0c9a1e-6c2b-4f57-9a59-2f7f2f0b7c11',
  total_rows: 200,
  processed_rows: 120,
  failed_rows: 14,
  created_at: EXAMPLE_TIME,
  started_at: '2026-03-02T15:10:00.000Z',
  completed_at: null,
  retry_config: { ...DEFAULT_RETRY_CONFIG, max_retries: 1, retry_on_voicemail: false },
  max_concurrency: 5,
  schedule_config: {
    enabled: true,
    timezone: 'America/New_York',
    slots: [{ day_of_week: 0, start_time: '09:00', end_time: '17:00' }],
  },
  circuit_breaker: DEFAULT_CIRCUIT_BREAKER,
  executed_count: 131,
  total_queued_count: 136,
  dnc_skipped: 3,
  frequency_capped: 2,
  transferred: 9,
  parent_campaign_id: null,
  redialed_campaign_id: null,
  telephony_configuration_id: 2,
  telephony_configuration_name: 'Twilio production',
  fallback_telephony_configuration_id: 3,
  fallback_caller_number: '+14155550199',
  active_telephony_configuration_id: 2,
  failed_over_at: null,
  voicemail_action: 'leave_message',
  logs: [
    {
      ts: '2026-03-02T15:10:00.000Z',
      level: 'info',
      event: 'campaign_started',
      message: 'Campaign started with 200 contacts',
      details: { total_rows: 200 },
    },
  ],
};

export const Campaign = z
  .object({
    id: z.number().int(),
    name: z.string(),
    workflow_id: z.number().int(),
    workflow_name: z.string(),
    state: z.enum(CAMPAIGN_STATES),
    source_type: z.string(),
    source_id: z
      .string()
      .nullable()
      .openapi({ description: 'The contact list; null once it was deleted (after the campaign finished).' }),
    total_rows: z.number().int().nullable(),
    processed_rows: z.number().int().openapi({ description: 'Contacts with a final outcome.' }),
    failed_rows: z.number().int().openapi({ description: 'Contacts whose final outcome is not `completed`.' }),
    created_at: DateTimeString,
    started_at: DateTimeString.nullable(),
    completed_at: DateTimeString.nullable(),
    retry_config: RetryConfig,
    max_concurrency: z.number().int().nullable(),
    schedule_config: ScheduleConfig.nullable(),
    circuit_breaker: CircuitBreaker,
    executed_count: z.number().int().openapi({ description: 'Attempts dialed.' }),
    total_queued_count: z.number().int().openapi({ description: 'Attempts queued so far, retries included.' }),
    dnc_skipped: z
      .number()
      .int()
      .openapi({
        description:
          "Contacts never dialed because their number is on the organization's do-not-call list (counted in " +
          'processed_rows and failed_rows too).',
      }),
    frequency_capped: z.number().int().openapi({
      description: 'Dials put off because the number had reached a frequency cap; each waits until the caps allow it.',
    }),
    transferred: z
      .number()
      .int()
      .openapi({
        description:
          'Contacts whose call was transferred to a person (disposition `transferred`): reached, never retried, ' +
          'counted in processed_rows and in the `completed` outcome too.',
      }),
    parent_campaign_id: z.number().int().nullable(),
    redialed_campaign_id: z.number().int().nullable(),
    telephony_configuration_id: z.number().int().nullable(),
    telephony_configuration_name: z.string().nullable(),
    fallback_telephony_configuration_id: z.number().int().nullable(),
    fallback_caller_number: z.string().nullable(),
    active_telephony_configuration_id: z.number().int().nullable().openapi({
      description: 'The configuration the campaign dials through now: the fallback once it failed over.',
    }),
    failed_over_at: DateTimeString.nullable().openapi({ description: 'When the campaign switched to its fallback.' }),
    voicemail_action: z.enum(VOICEMAIL_ACTIONS),
    logs: z.array(CampaignLogEntry),
  })
  .openapi('Campaign', { example: EXAMPLE_CAMPAIGN });

const NotDialingReason = z
  .object({
    reason: z.enum([
      'not_started',
      'paused',
      'paused_by_circuit_breaker',
      'failed',
      'outside_calling_window',
      'at_concurrency_limit',
      'waiting_for_dial_turn',
      'frequency_capped',
      'no_telephony_route',
      'waiting_for_retries',
    ]),
    message: z.string(),
    until: DateTimeString.nullable().openapi({ description: 'When it ends by itself, if it does.' }),
    count: z.number().int().nullable().openapi({ description: 'The contacts or calls it holds.' }),
    details: z.record(z.string(), z.unknown()).openapi({
      description: "Figures: the circuit breaker's failure rate, counts, threshold and window; a failure's error.",
    }),
  })
  .openapi('NotDialingReason');

const EXAMPLE_ANALYSIS = {
  analyzed_calls: 96,
  evaluated_calls: 96,
  successful_calls: 61,
  success_rate: 0.635,
  sentiment: { positive: 40, neutral: 47, negative: 9 },
  top_tags: [
    { tag: 'appointment_confirmed', calls: 52 },
    { tag: 'dead_air', calls: 7 },
  ],
};

export const CampaignAnalysis = z
  .object({
    analyzed_calls: z.number().int().openapi({
      description: "The campaign's calls whose post-call analysis gave a result (`annotations.analysis`).",
    }),
    evaluated_calls: z.number().int().openapi({ description: 'Analysed calls with a success evaluation.' }),
    successful_calls: z.number().int().openapi({ description: 'Evaluated calls judged successful.' }),
    success_rate: z.number().nullable().openapi({
      description: 'successful_calls / evaluated_calls, to 0.001; null before any call was evaluated.',
    }),
    sentiment: z
      .object({ positive: z.number().int(), neutral: z.number().int(), negative: z.number().int() })
      .openapi({ description: 'Analysed calls by `annotations.analysis.sentiment`.' }),
    top_tags: z
      .array(z.object({ tag: z.string(), calls: z.number().int() }))
      .openapi({ description: `The ${TOP_TAGS} most frequent tags of the analysed calls, most frequent first.` }),
  })
  .openapi('CampaignAnalysis', { example: EXAMPLE_ANALYSIS });

export const CampaignDetail = Campaign.extend({
  analysis: CampaignAnalysis.openapi({
    description:
      "How the campaign's analysed calls went, read from their runs when asked: a call counts once its analysis " +
      'is stored, which is after the campaign counted its outcome (see docs/guides/post-call-analysis.md).',
  }),
  not_dialing: z
    .object({ reasons: z.array(NotDialingReason) })
    .nullable()
    .openapi({
      description:
        'Why the campaign places no new call now; null while it dials, and once it has finished. A running ' +
        "campaign's reasons come from its workflow: outside its calling window (until when), every slot in use, " +
        'calls waiting for the dial rate, contacts held by frequency caps, no usable telephony route, retries not ' +
        'yet due.',
      example: {
        reasons: [
          {
            reason: 'outside_calling_window',
            message: 'Outside its calling window until 2026-03-03T14:00:00.000Z',
            until: '2026-03-03T14:00:00.000Z',
            count: null,
            details: {},
          },
        ],
      },
    }),
}).openapi('CampaignDetail', { example: { ...EXAMPLE_CAMPAIGN, analysis: EXAMPLE_ANALYSIS, not_dialing: null } });

export const CampaignList = z
  .object({
    campaigns: z.array(Campaign),
    total_count: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    total_pages: z.number().int(),
  })
  .openapi('CampaignList', {
    example: { campaigns: [EXAMPLE_CAMPAIGN], total_count: 1, page: 1, limit: 50, total_pages: 1 },
  });

export const CampaignProgressResponse = z
  .object({
    campaign_id: z.number().int(),
    state: z.enum(CAMPAIGN_STATES),
    total_rows: z.number().int(),
    processed_rows: z.number().int(),
    failed_rows: z.number().int(),
    executed_count: z.number().int(),
    total_queued_count: z.number().int(),
    dnc_skipped: z
      .number()
      .int()
      .openapi({
        description:
          "Contacts never dialed because their number is on the organization's do-not-call list (counted in " +
          'processed_rows and failed_rows too).',
      }),
    frequency_capped: z.number().int().openapi({
      description: 'Dials put off because the number had reached a frequency cap; each waits until the caps allow it.',
    }),
    transferred: z
      .number()
      .int()
      .openapi({
        description:
          'Contacts whose call was transferred to a person (disposition `transferred`): reached, never retried, ' +
          'counted in processed_rows and in the `completed` outcome too.',
      }),
    in_flight: z.number().int().openapi({ description: 'Calls in progress.' }),
    pending_retries: z.number().int().openapi({ description: 'Retries waiting for their delay.' }),
    outcomes: z.record(z.string(), z.number().int()).openapi({
      description: 'Final outcomes by call status (contacts skipped for the do-not-call list are in dnc_skipped).',
      example: { completed: 180, busy: 12 },
    }),
    progress_percentage: z.number().openapi({ description: 'processed_rows / total_rows × 100, to 0.1.' }),
    next_open_at: DateTimeString.nullable().openapi({ description: 'Set while waiting for a schedule window.' }),
    active_telephony_configuration_id: z.number().int().nullable().openapi({
      description: 'The configuration the campaign dials through now: the fallback once it failed over.',
    }),
    started_at: DateTimeString.nullable(),
    completed_at: DateTimeString.nullable(),
    source: z
      .enum(['workflow', 'database'])
      .openapi({ description: "`workflow`: the running campaign's own query; `database`: the stored counters." }),
  })
  .openapi('CampaignProgress', {
    example: {
      campaign_id: 4,
      state: 'running',
      total_rows: 200,
      processed_rows: 120,
      failed_rows: 14,
      executed_count: 131,
      total_queued_count: 136,
      dnc_skipped: 3,
      frequency_capped: 2,
      transferred: 9,
      in_flight: 5,
      pending_retries: 6,
      outcomes: { completed: 106, busy: 8, 'no-answer': 6 },
      progress_percentage: 60,
      next_open_at: null,
      active_telephony_configuration_id: 2,
      started_at: '2026-03-02T15:10:00.000Z',
      completed_at: null,
      source: 'workflow',
    },
  });
export type CampaignProgressResponse = z.output<typeof CampaignProgressResponse>;

// The shapes the domain answers and takes (domain/campaigns/types.ts), as documented here.
export type CampaignDocumented = Documents<SameShape<z.output<typeof Campaign>, CampaignView>>;
export type CampaignProgressDocumented = Documents<SameShape<CampaignProgressResponse, CampaignProgressView>>;
export type CampaignListQueryDocumented = Documents<SameShape<z.output<typeof CampaignListQuery>, CampaignListRequest>>;
export type CampaignAnalysisDocumented = Documents<SameShape<z.output<typeof CampaignAnalysis>, CampaignAnalysisView>>;
