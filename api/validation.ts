import type { z } from 'zod';
import { ValidationError, type ValidationIssue } from './errors';

export type InputLocation = 'path' | 'query' | 'body' | 'header';

/** zod's issue codes, named as FastAPI (pydantic) names its error types where one fits. */
const typeByCode: Record<string, string> = {
  invalid_type: 'type_error',
  too_small: 'too_short',
  too_big: 'too_long',
  invalid_format: 'string_pattern_mismatch',
  invalid_value: 'enum',
  unrecognized_keys: 'extra_forbidden',
  invalid_union: 'union_error',
  custom: 'value_error',
};

export function toValidationIssues(error: z.ZodError, location: InputLocation): ValidationIssue[] {
  return error.issues.map((issue) => ({
    loc: [location, ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))],
    msg: issue.message,
    type: issueType(issue),
  }));
}

function issueType(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'missing';
  return typeByCode[issue.code] ?? issue.code;
}

type Parts = Partial<Record<InputLocation, { schema: z.ZodType; value: unknown }>>;

/**
 * Parses every part of a request and reports the problems of all parts together, as one 422 whose
 * `loc` entries start with their location (`path`, `query`, `body`, `header`).
 */
export function parseRequest(parts: Parts): Partial<Record<InputLocation, unknown>> {
  const parsed: Partial<Record<InputLocation, unknown>> = {};
  const issues: ValidationIssue[] = [];
  for (const [location, part] of Object.entries(parts) as [InputLocation, { schema: z.ZodType; value: unknown }][]) {
    // With its input, an issue tells a missing value (`missing`) from a wrong one (`type_error`).
    const result = part.schema.safeParse(part.value, { reportInput: true });
    if (result.success) parsed[location] = result.data;
    else issues.push(...toValidationIssues(result.error, location));
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return parsed;
}
