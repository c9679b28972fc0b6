import type { AgentGraph } from './agent-graph';

/**
 * Prompt templates: `{{name}}`, `{{name | Default text}}`, the legacy `{{name | fallback:Default}}`
 * (`{{name | fallback}}` alone falls back to the title-cased name), dotted paths such as
 * `{{initial_context.customer.name}}` and `{{gathered_context.x}}`, and the built-ins `current_time`,
 * `current_weekday`, `current_time_<IANA zone>` and `current_weekday_<IANA zone>`.
 */

const TIME = /^current_time(?:_(.+))?$/;
const WEEKDAY = /^current_weekday(?:_(.+))?$/;
const LEGACY_FALLBACK = /^fallback(?::(.*))?$/;

/** One `{{path | fallback}}` placeholder: where it sits in the template and what it names. */
interface Placeholder {
  start: number;
  end: number;
  path: string;
  fallback?: string;
}

/**
 * Every placeholder, in one left-to-right pass. A placeholder is `{{`, a path without `{`, `}` or
 * `|`, an optional `|` and fallback without braces, then `}}`; whitespace around the path and the
 * fallback is dropped. Each attempt stops at the first brace after its `{{`, so the work is linear
 * in the template's length: a tenant's template cannot stall the process (a backtracking regular
 * expression took minutes on a few thousand spaces).
 */
function placeholders(template: string): Placeholder[] {
  const found: Placeholder[] = [];
  let start = template.indexOf('{{');
  while (start !== -1) {
    const inner = start + 2;
    let close = inner;
    while (close < template.length && template[close] !== '{' && template[close] !== '}') close += 1;
    const body = template.slice(inner, close);
    const bar = body.indexOf('|');
    const rawPath = bar === -1 ? body : body.slice(0, bar);
    if (template.startsWith('}}', close) && rawPath.length > 0) {
      // A path of blanks only names its last blank, which no context holds.
      const path = rawPath.trim() || rawPath.slice(-1);
      found.push({ start, end: close + 2, path, fallback: bar === -1 ? undefined : body.slice(bar + 1).trim() });
      start = template.indexOf('{{', close + 2);
    } else {
      start = template.indexOf('{{', start + 1);
    }
  }
  return found;
}

/** The template with each placeholder replaced by what `fill` answers for it. */
function replacePlaceholders(template: string, fill: (placeholder: Placeholder) => string): string {
  let out = '';
  let from = 0;
  for (const placeholder of placeholders(template)) {
    out += template.slice(from, placeholder.start) + fill(placeholder);
    from = placeholder.end;
  }
  return out + template.slice(from);
}

export interface TemplateContext {
  initialContext?: Record<string, unknown>;
  gatheredContext?: Record<string, unknown>;
  /** The clock for the built-ins; now by default. */
  now?: Date;
  /** More top-level names (a tool's arguments), over the initial context's own. */
  variables?: Record<string, unknown>;
  /** Applied to every value put in, e.g. percent-encoding for a URL. */
  encode?: (value: string) => string;
}

const isValidTimeZone = (zone: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

/** `YYYY-MM-DD HH:MM:SS TZ`, TZ being the zone's short name (`UTC`, `EST`, `GMT+1`). */
function formatTime(now: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'short',
    })
      .formatToParts(now)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${parts.timeZoneName}`;
}

const formatWeekday = (now: Date, timeZone: string): string =>
  new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'long' }).format(now);

/** The value at a dotted path (`gathered_context.age`), or undefined where an object is missing. */
export function lookup(root: Record<string, unknown>, path: string): unknown {
  let value: unknown = root;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

const stringify = (value: unknown): string =>
  typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);

const titleCase = (path: string): string =>
  (path.split('.').pop() ?? path)
    .split(/[_\s]+/)
    .filter(Boolean)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join(' ');

/** What a fallback expression stands for: plain text, or the legacy `fallback[:text]` form. */
function fallbackText(expression: string, path: string): string {
  const legacy = LEGACY_FALLBACK.exec(expression);
  if (!legacy) return expression;
  return legacy[1]?.trim() || titleCase(path);
}

/** What a template's paths are looked up in: the variables, the initial context's keys, and both contexts by name. */
export function templateRoot(context: TemplateContext): Record<string, unknown> {
  const initial = context.initialContext ?? {};
  return {
    ...initial,
    ...context.variables,
    initial_context: initial,
    gathered_context: context.gatheredContext ?? {},
  };
}

/** Renders a template; a missing variable without a fallback renders as an empty string. */
export function renderTemplate(template: string, context: TemplateContext = {}): string {
  const now = context.now ?? new Date();
  const root = templateRoot(context);
  const encode = context.encode ?? ((value: string) => value);
  // A bare `current_weekday` follows the zone of any `current_time_<zone>` in the same template.
  const templateZone = placeholders(template)
    .map(({ path }) => TIME.exec(path)?.[1])
    .find((zone) => zone !== undefined && isValidTimeZone(zone));

  const builtIn = (path: string): string | undefined => {
    const time = TIME.exec(path);
    const weekday = WEEKDAY.exec(path);
    const match = time ?? weekday;
    if (!match) return undefined;
    const zone = match[1] ?? (weekday ? templateZone : undefined) ?? 'UTC';
    if (!isValidTimeZone(zone)) return undefined;
    return time ? formatTime(now, zone) : formatWeekday(now, zone);
  };

  return replacePlaceholders(template, ({ path, fallback }) => {
    const value = builtIn(path) ?? lookup(root, path);
    if (value !== undefined && value !== null && value !== '') return encode(stringify(value));
    return fallback === undefined ? '' : encode(fallbackText(fallback, path));
  }).replace(/\\n/g, '\n');
}

/**
 * The context variables a template needs from whoever starts the call: those without a fallback,
 * other than the built-ins and `gathered_context.*` (filled during the call). `initial_context.x`
 * and `x.y` both need the top-level `x`.
 */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const { path, fallback } of placeholders(template)) {
    if (fallback !== undefined || TIME.test(path) || WEEKDAY.test(path)) continue;
    const [first, second] = path.split('.');
    if (first === 'gathered_context') continue;
    const name = first === 'initial_context' ? second : first;
    if (name) names.push(name);
  }
  return names;
}

function collectStrings(value: unknown, into: string[]): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) value.forEach((item) => collectStrings(item, into));
  else if (value && typeof value === 'object') Object.values(value).forEach((item) => collectStrings(item, into));
  return into;
}

/** Node types whose text is spoken or prompted during the call (webhook and QA nodes run afterwards). */
const CONVERSATION_NODES = new Set(['startCall', 'agentNode', 'endCall', 'globalNode']);

/** Sorted names of the variables a definition requires, e.g. to check a campaign's CSV columns. */
export function requiredTemplateVariables(definition: Pick<AgentGraph, 'nodes' | 'edges'>): string[] {
  const texts = collectStrings(
    [
      ...definition.nodes.filter((node) => CONVERSATION_NODES.has(node.type)).map((node) => node.data),
      ...definition.edges.map((edge) => edge.data),
    ],
    [],
  );
  return [...new Set(texts.flatMap(templateVariables))].sort();
}
