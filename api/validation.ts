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
    type:
      issue.code === 'invalid_type' && issue.input === undefined ? 'missing' : (typeByCode[issue.code] ?? issue.code),
  }));
}

/** Parses one part of a request; a failure becomes a 422 whose `loc` starts with the location. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, location: InputLocation): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ValidationError(toValidationIssues(result.error, location));
  return result.data;
}
