import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';
import type { Tracing } from './tracing';

/**
 * Temporal's workflow tracing interceptors. Bundled with the workflows: `npm run build` puts them
 * in the prebuilt bundle, and a worker that bundles at start adds them (`workerTracing`).
 */
export const WORKFLOW_TRACING_MODULE =
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/**
 * The worker's share of tracing: every activity (local ones too) runs in a span continuing its
 * workflow's trace, workflows' spans leave the sandbox through the `exporter` sink, and a worker
 * that bundles its workflows bundles the tracing interceptors with them.
 */
export function workerTracing(
  tracing: Tracing,
  bundlesAtStart: boolean,
): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
      ...(bundlesAtStart ? { workflowModules: [WORKFLOW_TRACING_MODULE] } : {}),
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
