import { QueryFailedError } from 'typeorm';

/** A PostgreSQL unique violation (SQLSTATE 23505) on the named constraint or unique index. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { code?: unknown; constraint?: unknown };
  return driverError.code === '23505' && driverError.constraint === constraint;
}

/** SQLSTATE of a PostgreSQL error, whether TypeORM wrapped it, the driver threw it or it is a cause. */
function sqlState(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current && typeof current === 'object'; depth += 1) {
    const { code, driverError, cause } = current as { code?: unknown; driverError?: unknown; cause?: unknown };
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = driverError ?? cause;
  }
  return undefined;
}

/**
 * A data exception (SQLSTATE class 22: a number out of range, text PostgreSQL cannot store, a bad
 * date): the request carried a value the database refuses, so it is the client's error.
 */
export const isDataException = (error: unknown): boolean => sqlState(error)?.startsWith('22') ?? false;
