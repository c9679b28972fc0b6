import { z } from '../zod';
import { BodyId, DateTimeString, IdParam, IsoDateTime, PageQuery, text } from './common';

const filter = <A extends string, T extends string, V extends z.ZodType>(attribute: A, type: T, value: V) =>
  z.object({ attribute: z.literal(attribute), type: z.literal(type), value });
const exactNumber = z.object({ value: BodyId });
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

export const WorkflowRunParams = z.object({ workflow_id: IdParam, run_id: IdParam });

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
  start_date: BoundDateTime.optional(),
  end_date: BoundDateTime.optional(),
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
    annotations: JsonObject,
  })
  .openapi('WorkflowRun');

export const WorkflowRunDetail = WorkflowRunItem.extend({
  call_type: z.enum(['inbound', 'outbound']),
  state: z.enum(['initialized', 'running', 'completed']),
  campaign_id: z.number().int().nullable(),
  caller_number: z.string().nullable(),
  called_number: z.string().nullable(),
  disposition: z.string().nullable(),
  usage_info: JsonObject,
}).openapi('WorkflowRunDetail');

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
  .openapi('WorkflowRunsPage');

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
  })
  .openapi('UsageRun');

export const UsageRunsPage = z
  .object({
    runs: z.array(UsageRunItem),
    total_dograh_tokens: z.number().openapi({ description: 'Sum of `platform_token_usage` over every matching run.' }),
    total_duration_seconds: z.number().int().openapi({ description: 'Over every matching run, not just the page.' }),
    total_count: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
    total_pages: z.number().int(),
  })
  .openapi('UsageRunsPage');
