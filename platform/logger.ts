import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';
import { serializeError } from './log-redaction';

/** The trace and span a log line was written in, when one is being recorded. */
function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan()?.spanContext();
  return span && trace.isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

/**
 * Structured JSON logs. Anything that looks like a credential is redacted, and a database error's
 * `err` loses the values it quotes (platform/log-redaction.ts). A line written inside a traced
 * request or call carries its `trace_id`.
 */
export function createLogger(level: string, name: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    mixin: traceFields,
    serializers: { err: serializeError },
    redact: {
      paths: [
        'password',
        '*.password',
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'headers.authorization',
        'headers["x-api-key"]',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
