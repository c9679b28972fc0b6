import { renderJsonTemplate } from '../agents/json-template';
import { renderTemplate } from '../agents/templates';
import type { HttpApiConfig, ParameterType, PresetParameter } from './types';

/**
 * An HTTP tool's request from its definition, the model's arguments and the call's context, and
 * what the model is told of the answer. Sending is the caller's (through the address guard).
 */

export interface ToolCallContext {
  initialContext: Record<string, unknown>;
  gatheredContext: Record<string, unknown>;
}

export interface BuiltRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** What the model sees of a tool call: plainly whether it worked. */
export type ToolResult =
  | { ok: true; status_code?: number; data: unknown; truncated?: true }
  | { ok: false; status_code?: number; data?: unknown; error: string; truncated?: true };

export class ToolArgumentsError extends Error {}

/** The most of an answer the model is given; the rest is cut with a note. */
export const MAX_RESULT_CHARS = 8_000;

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

function coercePreset(value: string, type: ParameterType): unknown {
  if (type === 'string') return value;
  if (type === 'number') {
    const number = Number(value);
    return value.trim() !== '' && Number.isFinite(number) ? number : value;
  }
  if (type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Preset values rendered from the call's context; a required one that renders empty is an error. */
export function presetValues(presets: PresetParameter[], context: ToolCallContext): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const preset of presets) {
    const rendered = renderTemplate(preset.value_template, context);
    if (rendered === '') {
      if (preset.required)
        throw new ToolArgumentsError(`the preset parameter ${preset.name} has no value in this call`);
      continue;
    }
    values[preset.name] = coercePreset(rendered, preset.type);
  }
  return values;
}

/** The model's arguments, checked against the declared parameters (required present, types right). */
export function checkedArguments(config: HttpApiConfig, args: Record<string, unknown>): Record<string, unknown> {
  const checked: Record<string, unknown> = {};
  for (const parameter of config.parameters) {
    const value = args[parameter.name];
    if (value === undefined || value === null) {
      if (parameter.required) throw new ToolArgumentsError(`the argument ${parameter.name} is required`);
      continue;
    }
    const actual = Array.isArray(value) ? 'array' : typeof value;
    if (actual !== parameter.type) {
      throw new ToolArgumentsError(`the argument ${parameter.name} must be a ${parameter.type}, not a ${actual}`);
    }
    checked[parameter.name] = value;
  }
  return checked;
}

/**
 * The request: URL and headers rendered with the arguments, presets and context (URL values
 * percent-encoded), the body from `body_template` or the values as one flat object, and the
 * headers the caller adds (credential, idempotency key, signature) on top.
 */
export function buildHttpToolRequest(
  config: HttpApiConfig,
  args: Record<string, unknown>,
  context: ToolCallContext,
): BuiltRequest {
  const values = { ...checkedArguments(config, args), ...presetValues(config.preset_parameters, context) };
  const templateContext = { ...context, variables: values };
  const url = renderTemplate(config.url, { ...templateContext, encode: encodeURIComponent });
  const headers = Object.fromEntries(
    Object.entries(config.headers).map(([name, value]) => [name, renderTemplate(value, templateContext)]),
  );
  if (!BODY_METHODS.has(config.method)) return { method: config.method, url, headers };
  const body = config.body_template ? renderJsonTemplate(config.body_template, templateContext) : values;
  return {
    method: config.method,
    url,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}

/** The answer as the model sees it: JSON parsed, other text as text, cut past MAX_RESULT_CHARS. */
export function httpToolResult(
  status: number,
  body: Buffer,
  contentType: string | undefined,
  truncatedBody: boolean,
): ToolResult {
  const text = body.toString('utf8');
  let data: unknown = text;
  const looksJson = (contentType ?? '').includes('json') || /^\s*[[{]/.test(text);
  if (looksJson && !truncatedBody) {
    try {
      data = JSON.parse(text) as unknown;
    } catch {
      data = text;
    }
  }
  const serialized = typeof data === 'string' ? data : JSON.stringify(data);
  const truncated = truncatedBody || serialized.length > MAX_RESULT_CHARS;
  if (truncated) {
    data = `${serialized.slice(0, MAX_RESULT_CHARS)}… [answer cut at ${MAX_RESULT_CHARS} characters of a longer answer]`;
  }
  const ok = status >= 200 && status < 300;
  const extra = truncated ? { truncated: true as const } : {};
  return ok
    ? { ok, status_code: status, data, ...extra }
    : { ok, status_code: status, data, error: `the server answered ${status}`, ...extra };
}
