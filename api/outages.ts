/** Recognizes a dependency outage by error codes (never by message text) anywhere in the cause chain. */

const causes = function* (error: unknown): Generator<Record<string, unknown>> {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current && typeof current === 'object'; depth += 1) {
    yield current as Record<string, unknown>;
    const record = current as { cause?: unknown; driverError?: unknown };
    current = record.driverError ?? record.cause;
  }
};

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);
// SQLSTATE class 08 (connection exception) and 57P01..57P03 (server shutting down or starting).
const PG_OUTAGE = /^(08...|57P0[123])$/;

export function isDatabaseOutage(error: unknown): boolean {
  for (const cause of causes(error)) {
    const code = cause.code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || PG_OUTAGE.test(code))) return true;
  }
  return false;
}

// gRPC status codes: 4 DEADLINE_EXCEEDED, 14 UNAVAILABLE.
const GRPC_OUTAGE = new Set([4, 14]);

export function isTemporalOutage(error: unknown): boolean {
  for (const cause of causes(error)) {
    if (cause.name === 'ServiceError' || cause.name === 'ConnectionError' || cause.name === 'TransportError') {
      const inner = cause.cause as { code?: unknown } | undefined;
      if (!inner || (typeof inner.code === 'number' && GRPC_OUTAGE.has(inner.code))) return true;
    }
    if (typeof cause.code === 'number' && GRPC_OUTAGE.has(cause.code) && 'metadata' in cause) return true;
  }
  return false;
}
