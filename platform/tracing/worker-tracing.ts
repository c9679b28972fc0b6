import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';
import type { Tracing } from './tracing';

/**
 * Temporal's workflow tracing interceptors, bundled with the workflows (workers/workflow-code.ts):
 * every worker loads a bundle that already holds them.
 */
export const WORKFLOW_TRACING_MODULE =
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/**
 * The worker's share of tracing: every activity (local ones too) runs in a span continuing its
 * workflow's trace, and workflows' spans leave the sandbox through the `exporter` sink.
 */
export function workerTracing(tracing: Tracing): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
