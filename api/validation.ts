import type { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../domain/errors';
import { toValidationIssues, type InputLocation } from '../domain/validation-issues';

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
