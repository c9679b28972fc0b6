import { lookup, renderTemplate, templateRoot, type TemplateContext } from './templates';

/** A string that is exactly one placeholder, e.g. `"{{gathered_context.age}}"` (fallback allowed). */
const WHOLE_PLACEHOLDER = /^\{\{\s*([^{}|]+?)\s*(?:\|[^{}]*)?\}\}$/;

/**
 * Renders a JSON template (webhook payloads, tool request bodies): every string goes through the
 * prompt template renderer. A string that is one placeholder and names a number, boolean, object or
 * array keeps that JSON type, so `"{{cost_info.call_duration_seconds}}"` sends `42`, not `"42"`.
 */
export function renderJsonTemplate(template: unknown, context: TemplateContext): unknown {
  const root = templateRoot(context);
  const render = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const path = WHOLE_PLACEHOLDER.exec(value)?.[1];
      const raw = path === undefined ? undefined : lookup(root, path);
      if (raw !== undefined && raw !== null && typeof raw !== 'string') return raw;
      return renderTemplate(value, context);
    }
    if (Array.isArray(value)) return value.map(render);
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, render(item)]));
    }
    return value;
  };
  return render(template);
}
