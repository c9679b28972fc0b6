import { QueryFailedError } from 'typeorm';

/** A PostgreSQL unique violation (SQLSTATE 23505) on the named constraint or unique index. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: unknown; constraint?: unknown };
  return driverError.code === '23505' && driverError.constraint === constraint;
}
