import { lookup, renderTemplate } from '../../domain/agents/templates';

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

/** A string that is exactly one placeholder, e.g. `"{{gathered_context.age}}"` (fallback allowed). */
const WHOLE_PLACEHOLDER = /^\{\{\s*([^{}|]+?)\s*(?:\|[^{}]*)?\}\}$/;

/**
 * Renders a webhook node's `payload_template` (any JSON): every string goes through the agents'
 * template renderer (`{{path}}`, `{{path | fallback}}`, built-in times). A string that is one
 * placeholder and names a number, boolean, object or array keeps that JSON type, so
 * `"{{cost_info.call_duration_seconds}}"` sends `42`, not `"42"`.
 */
export function renderPayload(template: unknown, context: PayloadContext, now = new Date()): unknown {
  // The run's own fields are top-level names and win over request keys of the same name. (The agents'
  // renderer also shows them under `initial_context.*` in mixed text: harmless, they are the run's.)
  const initialContext = { ...context.initialContext, ...context.run };
  const root = {
    ...initialContext,
    initial_context: context.initialContext,
    gathered_context: context.gatheredContext,
  };
  const render = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const path = WHOLE_PLACEHOLDER.exec(value)?.[1];
      const raw = path === undefined ? undefined : lookup(root, path);
      if (raw !== undefined && raw !== null && typeof raw !== 'string') return raw;
      return renderTemplate(value, { initialContext, gatheredContext: context.gatheredContext, now });
    }
    if (Array.isArray(value)) return value.map(render);
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, render(item)]));
    }
    return value;
  };
  return render(template);
}
