import { trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';

/** The trace and span a log line was written in, when one is being recorded. */
function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan()?.spanContext();
  return span && trace.isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
}

/**
 * Structured JSON logs. Anything that looks like a credential is redacted. A line written inside a
 * traced request or call carries its `trace_id`.
 */
export function createLogger(level: string, name: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    mixin: traceFields,
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
