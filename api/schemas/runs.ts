import { z } from '../zod';
import { BodyId, DateTimeString, EXAMPLE_TIME, IdParam, IsoDateTime, PageQuery, text } from './common';
import { TRANSFER_OUTCOMES } from '../../domain/runs/types';
import type {
  RunDetail,
  RunItem,
  RunsListRequest,
  RunsPage,
  UsageRunItem as DomainUsageRunItem,
  UsageRunsPage as DomainUsageRunsPage,
  UsageRunsRequest,
} from '../../domain/runs/types';
import type { Documents, SameShape } from './common';

const filter = <A extends string, T extends string, V extends z.ZodType>(attribute: A, type: T, value: V) =>
  z.object({ attribute: z.literal(attribute), type: z.literal(type), value });
const exactNumber = z.object({ value: BodyId });
/** A typed analysis field's name, as the QA node declares it. */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const substring = z.object({ value: text(255).min(1) });
const Seconds = z.number().min(-1e12).max(1e12);
const KNOWN_FILTERS = [
  filter('runId', 'number', exactNumber),
  filter('workflowId', 'number', exactNumber),
  filter('campaignId', 'number', exactNumber),
  filter('callerNumber', 'text', substring),
  filter('calledNumber', 'text', substring),
  filter('dispositionCode', 'multiSelect', z.object({ codes: z.array(text(255)).min(1) })),
  filter('duration', 'numberRange', z.object({ min: Seconds.optional(), max: Seconds.optional() })),
  filter('dateRange', 'dateRange', z.object({ from: IsoDateTime.optional(), to: IsoDateTime.optional() })),
  filter('status', 'radio', z.object({ status: z.enum(['completed', 'in_progress']) })),
  filter('analysisTags', 'multiSelect', z.object({ tags: z.array(text(255).min(1)).min(1).max(20) })),
  filter(
    'analysisSentiment',
    'multiSelect',
    z.object({ sentiments: z.array(z.enum(['positive', 'neutral', 'negative'])).min(1) }),
  ),
  filter('analysisSuccess', 'radio', z.object({ successful: z.boolean() })),
  filter(
    'analysisScore',
    'numberRange',
    z.object({ min: z.number().min(0).max(10).optional(), max: z.number().min(0).max(10).optional() }),
  ),
  filter(
    'analysisField',
    'analysisField',
    z
      .object({
        name: text(255).regex(FIELD_NAME).openapi({ pattern: FIELD_NAME.source, minLength: 1, maxLength: 255 }),
        equals: z.union([text(255), z.number(), z.boolean()]).optional(),
        min: z.number().optional(),
        max: z.number().optional(),
      })
      .openapi({ anyOf: [{ required: ['equals'] }, { required: ['min'] }, { required: ['max'] }] }),
  ),
] as const;

/** Any other attribute and type pair: ignored, whatever its value. */
const IgnoredFilter = z.object({ attribute: z.string(), type: z.string(), value: z.unknown() }).openapi({
  not: {
    anyOf: KNOWN_FILTERS.map((known) => ({
      type: 'object',
      properties: {
        attribute: { const: known.shape.attribute.value },
        type: { const: known.shape.type.value },
      },
      required: ['attribute', 'type'],
    })),
  },
});

/**
 * What `filters` holds once parsed as JSON, for the document only (the run queries check it): each
 * known attribute with its type and value shape, or any other pair, which is ignored.
 */
export const RunFilters = z.array(z.union([...KNOWN_FILTERS, IgnoredFilter])).openapi('RunFilters', {
  description:
    'Filters on runs, all applied together; see docs/guides/agents.md for the attributes. A list ignores ' +
    'attributes it does not filter on; a known attribute and type with a malformed value answers 422.',
});

/** Sent as JSON text in the query string; the document declares it as JSON content of `RunFilters`. */
const FiltersParam = text(8192).optional().openapi({
  description: 'JSON array of `RunFilters`; text that is not a JSON array answers 400 "Invalid filters format".',
  example: '[{"attribute":"calledNumber","type":"text","value":{"value":"555"}}]',
});

export const WorkflowRunParams = z.object({
  workflow_id: IdParam.openapi({ example: 12 }),
  run_id: IdParam.openapi({ example: 501 }),
});

export const WorkflowRunsQuery = PageQuery.extend({
  filters: FiltersParam,
  sort_by: z.enum(['created_at', 'duration']).default('created_at'),
  sort_order: z.enum(['asc', 'desc']).default('desc'),
});

const BoundDateTime = IsoDateTime.openapi({
  format: 'date-time',
  description: 'ISO 8601; inclusive bound on `created_at`.',
});

export const UsageRunsQuery = PageQuery.extend({
  start_date: BoundDateTime.optional().openapi({ example: '2026-03-01T00:00:00Z' }),
  end_date: BoundDateTime.optional().openapi({ example: '2026-03-31T23:59:59Z' }),
  filters: FiltersParam,
});

export const CostInfo = z
  .object({
    platform_token_usage: z.number(),
    call_duration_seconds: z.number().int(),
    charge_usd: z.number(),
  })
  .openapi('CostInfo', { description: 'Derived from the run; `charge_usd` uses the configured prices.' });

const JsonObject = z.record(z.string(), z.unknown());

/** A completed outbound reminder call, as the run lists and details answer it. */
const EXAMPLE_RUN = {
  id: 501,
  workflow_id: 12,
  name: 'call-501',
  mode: 'twilio',
  created_at: EXAMPLE_TIME,
  is_completed: true,
  transcript_url: '/api/v1/workflow/12/runs/501/transcript',
  recording_url: '/api/v1/workflow/12/runs/501/recording',
  cost_info: { platform_token_usage: 1830, call_duration_seconds: 74, charge_usd: 0.0925 },
  definition_id: 31,
  initial_context: {
    provider: 'twilio',
    direction: 'outbound',
    first_name: 'Ada',
    called_number: '+14155550100',
    caller_number: '+14155550123',
  },
  gathered_context: { call_status: 'completed', mapped_call_disposition: 'completed' },
  logs: { ended_by: 'end_node', node_path: ['start', 'confirm', 'end'] },
  annotations: {},
};

export const WorkflowRunItem = z
  .object({
    id: z.number().int(),
    workflow_id: z.number().int(),
    name: z.string(),
    mode: z.string(),
    created_at: DateTimeString,
    is_completed: z.boolean(),
    transcript_url: z.string().nullable(),
    recording_url: z.string().nullable(),
    cost_info: CostInfo,
    definition_id: z.number().int().openapi({ description: 'The agent version the run executed.' }),
    initial_context: JsonObject,
    gathered_context: JsonObject,
    logs: JsonObject,
    annotations: JsonObject.openapi({
      description:
        'Post-call analysis results: `qa_<node id>` per QA node, `tags`, `analysis` (typed fields and the ' +
        'success evaluation) and `analysis_run` (see docs/guides/post-call-analysis.md).',
    }),
  })
  .openapi('WorkflowRun');

export const RunTransfer = z
  .object({
    destination: z.string().openapi({ description: 'Masked: its first three and last two characters.' }),
    mode: z.enum(['blind', 'warm']),
    outcome: z.enum(TRANSFER_OUTCOMES).openapi({
      description:
        '`joined`: the person answered and took the caller (the disposition is `transferred`); `busy`, ' +
        '`no-answer` (rang past the ring timeout), `failed`: the agent came back to the caller; `canceled`: ' +
        'the caller hung up while it rang.',
    }),
    ring_seconds: z.number().int(),
    started_at: DateTimeString,
    reason: z.string().optional().openapi({ description: 'What the model was told when it did not connect.' }),
  })
  .openapi('RunTransfer', {
    description: "The call's last transfer attempt (every attempt is in `logs.transfers`).",
    example: {
      destination: '+14********23',
      mode: 'blind',
      outcome: 'joined',
      ring_seconds: 6,
      started_at: EXAMPLE_TIME,
    },
  });

export const WorkflowRunDetail = WorkflowRunItem.extend({
  call_type: z.enum(['inbound', 'outbound']),
  state: z.enum(['initialized', 'running', 'completed']),
  campaign_id: z.number().int().nullable(),
  caller_number: z.string().nullable(),
  called_number: z.string().nullable(),
  disposition: z.string().nullable(),
  usage_info: JsonObject,
  analysis_history: z.array(JsonObject).openapi({
    description:
      'The post-call analyses a rerun replaced, oldest first: each the `annotations` keys it had written ' +
      '(`qa_<node id>`, `tags`, `analysis`, `analysis_run`).',
  }),
  transfer: RunTransfer.nullable(),
}).openapi('WorkflowRunDetail', {
  example: {
    ...EXAMPLE_RUN,
    call_type: 'outbound',
    state: 'completed',
    campaign_id: 4,
    caller_number: '+14155550123',
    called_number: '+14155550100',
    disposition: 'completed',
    usage_info: {
      llm: { model: 'gpt-4o-mini', total_tokens: 1830, prompt_tokens: 1520, completion_tokens: 310 },
      tool_calls: { total: 2, failed: 0 },
      call_duration_seconds: 74,
    },
    analysis_history: [],
    transfer: null,
  },
});

export const AppliedFilters = z
  .array(z.object({ attribute: z.string(), type: z.string(), value: z.unknown() }))
  .nullable()
  .openapi({ description: 'The filters that were applied, as understood; null when none were sent.' });

export const WorkflowRunsPage = z
  .object({
    runs: z.array(WorkflowRunItem),
    total_count: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    total_pages: z.number().int(),
    applied_filters: AppliedFilters,
  })
  .openapi('WorkflowRunsPage', {
    example: {
      runs: [EXAMPLE_RUN],
      total_count: 1,
      page: 1,
      limit: 50,
      total_pages: 1,
      applied_filters: [{ attribute: 'calledNumber', type: 'text', value: { value: '555' } }],
    },
  });

export const UsageRunItem = z
  .object({
    id: z.number().int(),
    workflow_id: z.number().int(),
    workflow_name: z.string(),
    name: z.string(),
    created_at: DateTimeString,
    platform_token_usage: z.number(),
    call_duration_seconds: z.number().int(),
    recording_url: z.string().nullable(),
    transcript_url: z.string().nullable(),
    phone_number: z
      .string()
      .nullable()
      .openapi({ description: 'Deprecated: the other party (called number outbound, caller number inbound).' }),
    caller_number: z.string().nullable(),
    called_number: z.string().nullable(),
    call_type: z.enum(['inbound', 'outbound']),
    mode: z.string(),
    disposition: z.string().nullable(),
    initial_context: JsonObject,
    gathered_context: JsonObject,
    charge_usd: z.number(),
    tool_calls: z
      .number()
      .int()
      .openapi({ description: "The tool calls the run's agent made (`usage_info.tool_calls.total`)." }),
  })
  .openapi('UsageRun');

export const UsageRunsPage = z
  .object({
    runs: z.array(UsageRunItem),
    total_dograh_tokens: z.number().openapi({ description: 'Sum of `platform_token_usage` over every matching run.' }),
    total_duration_seconds: z.number().int().openapi({ description: 'Over every matching run, not just the page.' }),
    total_tool_calls: z.number().int().openapi({ description: 'Tool calls made over every matching run.' }),
    total_count: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    total_pages: z.number().int(),
  })
  .openapi('UsageRunsPage', {
    example: {
      runs: [
        {
          id: 501,
          workflow_id: 12,
          workflow_name: 'Appointment reminder',
          name: 'call-501',
          created_at: EXAMPLE_TIME,
          platform_token_usage: 1830,
          call_duration_seconds: 74,
          recording_url: '/api/v1/workflow/12/runs/501/recording',
          transcript_url: '/api/v1/workflow/12/runs/501/transcript',
          phone_number: '+14155550100',
          caller_number: '+14155550123',
          called_number: '+14155550100',
          call_type: 'outbound',
          mode: 'twilio',
          disposition: 'completed',
          initial_context: { first_name: 'Ada' },
          gathered_context: { call_status: 'completed', mapped_call_disposition: 'completed' },
          charge_usd: 0.0925,
          tool_calls: 2,
        },
      ],
      total_dograh_tokens: 1830,
      total_duration_seconds: 74,
      total_tool_calls: 2,
      total_count: 1,
      page: 1,
      limit: 50,
      total_pages: 1,
    },
  });

// The shapes the domain answers and takes (domain/runs/types.ts), as documented here.
export type WorkflowRunItemDocumented = Documents<SameShape<z.output<typeof WorkflowRunItem>, RunItem>>;
export type WorkflowRunDetailDocumented = Documents<SameShape<z.output<typeof WorkflowRunDetail>, RunDetail>>;
export type WorkflowRunsPageDocumented = Documents<SameShape<z.output<typeof WorkflowRunsPage>, RunsPage>>;
export type WorkflowRunsQueryDocumented = Documents<SameShape<z.output<typeof WorkflowRunsQuery>, RunsListRequest>>;
export type UsageRunItemDocumented = Documents<SameShape<z.output<typeof UsageRunItem>, DomainUsageRunItem>>;
export type UsageRunsPageDocumented = Documents<SameShape<z.output<typeof UsageRunsPage>, DomainUsageRunsPage>>;
export type UsageRunsQueryDocumented = Documents<SameShape<z.output<typeof UsageRunsQuery>, UsageRunsRequest>>;

export const RunIdParams = z.object({ run_id: IdParam.openapi({ example: 501 }) });

export const AnalysisRerunHeaders = z.object({
  'Idempotency-Key': text(255).optional().openapi({
    description: 'The same key names the same rerun: a repeated request starts nothing more and answers the same.',
    example: 'reanalyse-2026-03-01',
  }),
});

export const AnalysisRerunResponse = z
  .object({
    run_id: z.number().int(),
    analysis_id: z.string().openapi({
      description: "Names the rerun; the run's `annotations.analysis_run.id` once its results are written.",
    }),
    status: z.literal('accepted'),
  })
  .openapi('AnalysisRerun', {
    example: { run_id: 501, analysis_id: 'key-3f1b2c4d5e6f708192a3b4c5d6e7f809', status: 'accepted' },
  });
