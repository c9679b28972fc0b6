import { renderJsonTemplate } from '../agents/json-template';

/** What a payload template can refer to, besides `initial_context.*` and `gathered_context.*`. */
export interface PayloadVariables {
  workflow_run_id: number;
  call_status: unknown;
  call_duration_seconds: number;
  transcript_url: string | null;
  recording_url: string | null;
  cost_info: Record<string, unknown>;
  annotations: Record<string, unknown>;
}

export interface PayloadContext {
  initialContext: Record<string, unknown>;
  gatheredContext: Record<string, unknown>;
  run: PayloadVariables;
}

/**
 * Renders a webhook node's `payload_template` (any JSON) with the run's own fields as top-level
 * names, which win over request keys of the same name (see renderJsonTemplate for the rules).
 */
export function renderPayload(template: unknown, context: PayloadContext, now = new Date()): unknown {
  return renderJsonTemplate(template, {
    initialContext: context.initialContext,
    gatheredContext: context.gatheredContext,
    variables: { ...context.run },
    now,
  });
}
