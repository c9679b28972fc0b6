import type { z } from 'zod';
import type { ValidationIssue } from './errors';

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
