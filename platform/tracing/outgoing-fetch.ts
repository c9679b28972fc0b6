import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { context, defaultTextMapSetter, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/** The parts of undici's diagnostics-channel request that are used here. */
interface UndiciRequest {
  origin: string;
  method: string;
  path: string;
  addHeader(name: string, value: string): void;
}

const tracer = trace.getTracer('switchboard.fetch');

/**
 * `traceparent` and `tracestate` only, never the global propagator's `baggage`: what callers put in
 * baggage (user ids, tenant names) is not for telephony providers, model APIs or webhook receivers.
 */
const traceContextOnly = new W3CTraceContextPropagator();

/**
 * Makes every `fetch` (Node's undici) a client span, child of the span active where it was called,
 * with the `traceparent` header sent along so the provider's side can join the trace (baggage is
 * not sent). Returns the function that stops it.
 */
export function traceOutgoingFetch(): () => void {
  const spans = new WeakMap<object, Span>();
  const onCreate = (message: unknown): void => {
    const { request } = message as { request: UndiciRequest };
    const url = `${request.origin}${request.path.split('?')[0] ?? ''}`;
    const span = tracer.startSpan(`${request.method} ${new URL(request.origin).host}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'http.request.method': request.method, 'url.full': url },
    });
    spans.set(request, span);
    const carrier: Record<string, string> = {};
    traceContextOnly.inject(trace.setSpan(context.active(), span), carrier, defaultTextMapSetter);
    for (const [name, value] of Object.entries(carrier)) request.addHeader(name, value);
  };
  const onHeaders = (message: unknown): void => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    const span = spans.get(request);
    if (!span) return;
    span.setAttribute('http.response.status_code', response.statusCode);
    if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    spans.delete(request);
  };
  const onError = (message: unknown): void => {
    const { request, error } = message as { request: object; error: Error };
    const span = spans.get(request);
    if (!span) return;
    span.recordException(error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    span.end();
    spans.delete(request);
  };
  subscribe('undici:request:create', onCreate);
  subscribe('undici:request:headers', onHeaders);
  subscribe('undici:request:error', onError);
  return () => {
    unsubscribe('undici:request:create', onCreate);
    unsubscribe('undici:request:headers', onHeaders);
    unsubscribe('undici:request:error', onError);
  };
}
