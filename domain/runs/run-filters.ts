import { z } from 'zod';
import { InvalidError, ValidationError } from '../errors';
import { boundedText, IsoDateTime, RowId } from '../input-rules';
import { toValidationIssues } from '../validation-issues';
import type { SqlWhere } from './sql-where';

/**
 * The `filters` query parameter: a JSON array of `{attribute, type, value}`. Each attribute has one
 * type and one value shape; an unknown attribute, or a known one with another type, is ignored. A
 * known filter with a malformed value is a 422 pointing at it, on every list, including one that
 * does not filter on that attribute (the document describes one filter shape for all lists). Every
 * condition reads a column of `runs` (alias `r`) that an index covers.
 */

export interface AppliedFilter {
  attribute: string;
  type: string;
  value: unknown;
}

interface FilterDefinition {
  type: string;
  /** Validates the value; on success, `add` puts its condition on `where`. */
  parse(value: unknown): z.ZodSafeParseResult<unknown> & { add?: (where: SqlWhere) => void };
}

const define =
  <S extends z.ZodType>(type: string, schema: S, toSql: (where: SqlWhere, value: z.output<S>) => void) =>
  (): FilterDefinition => ({
    type,
    parse(value) {
      const result = schema.safeParse(value, { reportInput: true });
      return result.success ? { ...result, add: (where) => toSql(where, result.data) } : result;
    },
  });

const Seconds = z.number().min(-1e12).max(1e12);

/** `LIKE` pattern matching `text` anywhere, with `%`, `_` and `\` in it taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

const exactNumber = (column: string) =>
  define('number', z.object({ value: RowId }), (where, { value }) => where.add(`${column} = ?`, value));

const substring = (column: string) =>
  define('text', z.object({ value: boundedText(255).min(1) }), (where, { value }) =>
    where.add(`${column} LIKE ?`, containing(value)),
  );

const range = <T>(where: SqlWhere, column: string, cast: string, bounds: { min?: T; max?: T }) => {
  if (bounds.min !== undefined) where.add(`${column} >= ?::${cast}`, bounds.min);
  if (bounds.max !== undefined) where.add(`${column} <= ?::${cast}`, bounds.max);
};

const SENTIMENT = z.enum(['positive', 'neutral', 'negative']);
const Score = z.number().min(0).max(10);
const FieldName = z
  .string()
  .max(255)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'A field name is letters, digits and _, not starting with a digit');

/** Containment on the run's annotations, which one GIN index serves (`runs_annotations_idx`). */
const annotationsContain = (where: SqlWhere, value: Record<string, unknown>) =>
  where.add('r.annotations @> ?::jsonb', JSON.stringify(value));

/** A typed field's number, or null when the field holds something else (no cast can fail). */
const numericField = (name: string) =>
  `(CASE WHEN jsonb_typeof(r.annotations #> '{analysis,fields,${name},value}') = 'number'
         THEN (r.annotations #>> '{analysis,fields,${name},value}')::numeric END)`;

const FILTERS = {
  runId: exactNumber('r.id'),
  workflowId: exactNumber('r.workflow_id'),
  campaignId: exactNumber('r.campaign_id'),
  callerNumber: substring('r.caller_number'),
  calledNumber: substring('r.called_number'),
  dispositionCode: define('multiSelect', z.object({ codes: z.array(boundedText(255)).min(1) }), (where, { codes }) =>
    where.add('r.disposition = ANY(?::text[])', codes),
  ),
  // Durations are whole seconds: fractional bounds round inwards, so the integer index still applies.
  duration: define(
    'numberRange',
    z.object({ min: Seconds.optional(), max: Seconds.optional() }),
    (where, { min, max }) =>
      range(where, 'r.call_duration_seconds', 'bigint', {
        min: min === undefined ? undefined : Math.ceil(min),
        max: max === undefined ? undefined : Math.floor(max),
      }),
  ),
  dateRange: define(
    'dateRange',
    z.object({ from: IsoDateTime.optional(), to: IsoDateTime.optional() }),
    (where, { from, to }) => range(where, 'r.created_at', 'timestamptz', { min: from, max: to }),
  ),
  status: define('radio', z.object({ status: z.enum(['completed', 'in_progress']) }), (where, { status }) =>
    where.add('r.is_completed = ?', status === 'completed'),
  ),
  // Post-call analysis (docs/guides/post-call-analysis.md).
  analysisTags: define(
    'multiSelect',
    z.object({ tags: z.array(boundedText(255).min(1)).min(1).max(20) }),
    (where, { tags }) => annotationsContain(where, { tags }),
  ),
  analysisSentiment: define(
    'multiSelect',
    z.object({ sentiments: z.array(SENTIMENT).min(1) }),
    (where, { sentiments }) => where.add(`r.annotations #>> '{analysis,sentiment}' = ANY(?::text[])`, sentiments),
  ),
  analysisSuccess: define('radio', z.object({ successful: z.boolean() }), (where, { successful }) =>
    annotationsContain(where, { analysis: { success: { successful } } }),
  ),
  analysisScore: define('numberRange', z.object({ min: Score.optional(), max: Score.optional() }), (where, bounds) =>
    range(where, `(r.annotations #>> '{analysis,score}')::numeric`, 'numeric', bounds),
  ),
  analysisField: define(
    'analysisField',
    z
      .object({
        name: FieldName,
        equals: z.union([boundedText(255), z.number(), z.boolean()]).optional(),
        min: z.number().optional(),
        max: z.number().optional(),
      })
      .refine((value) => value.equals !== undefined || value.min !== undefined || value.max !== undefined, {
        message: 'Give `equals`, or `min` and/or `max`',
      }),
    (where, { name, equals, min, max }) => {
      if (equals !== undefined) annotationsContain(where, { analysis: { fields: { [name]: { value: equals } } } });
      range(where, numericField(name), 'numeric', { min, max });
    },
  ),
};

export type FilterAttribute = keyof typeof FILTERS;

/** The filters a list accepts, by attribute. */
export const filterSet = (attributes: FilterAttribute[]): Map<string, FilterDefinition> =>
  new Map(attributes.map((attribute) => [attribute, FILTERS[attribute]()]));

/** Every filter any list knows: their values are checked wherever they are sent. */
const ALL_FILTERS = filterSet(Object.keys(FILTERS) as FilterAttribute[]);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Adds the conditions of `raw` to `where` and answers the filters applied; null when no filters
 * were sent. Not a JSON array: 400 with `badFormatDetail`.
 */
export function applyFilters(
  raw: string | undefined,
  allowed: Map<string, FilterDefinition>,
  where: SqlWhere,
  badFormatDetail: string,
): AppliedFilter[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  let entries: unknown;
  try {
    entries = JSON.parse(raw);
  } catch {
    throw new InvalidError(badFormatDetail);
  }
  if (!Array.isArray(entries)) throw new InvalidError(badFormatDetail);
  const applied: AppliedFilter[] = [];
  entries.forEach((entry: unknown, index) => {
    if (!isRecord(entry) || typeof entry.attribute !== 'string') return;
    const definition = ALL_FILTERS.get(entry.attribute);
    if (!definition || definition.type !== entry.type) return;
    const result = definition.parse(entry.value);
    if (!result.success) {
      throw new ValidationError(
        toValidationIssues(result.error, 'query').map((issue) => ({
          ...issue,
          loc: ['query', 'filters', index, 'value', ...issue.loc.slice(1)],
        })),
      );
    }
    if (!allowed.has(entry.attribute)) return;
    result.add?.(where);
    applied.push({ attribute: entry.attribute, type: definition.type, value: result.data });
  });
  return applied;
}
