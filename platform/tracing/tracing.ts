import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { traceOutgoingFetch } from './outgoing-fetch';

/** What a process needs of tracing: the span processor and resource Temporal's interceptors export through. */
export interface Tracing {
  resource: Resource;
  spanProcessor: SpanProcessor;
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry tracing for `serviceName` when an OTLP endpoint is configured: spans go
 * there over OTLP/HTTP (JSON), the W3C `traceparent` header carries the trace across processes,
 * and every `fetch` the process makes (provider APIs, webhooks) is a client span. Without an
 * endpoint nothing is registered and every span is a no-op.
 */
export function startTracing(endpoint: string | undefined, serviceName: string): Tracing {
  const resource = new Resource({ 'service.name': serviceName });
  if (!endpoint) {
    return { resource, spanProcessor: new NoopSpanProcessor(), shutdown: () => Promise.resolve() };
  }
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` });
  const spanProcessor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  const untrace = traceOutgoingFetch();
  return {
    resource,
    spanProcessor,
    shutdown: async () => {
      untrace();
      await provider.shutdown();
    },
  };
}
