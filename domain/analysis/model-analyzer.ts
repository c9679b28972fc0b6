import OpenAI from 'openai';
import { z } from 'zod';
import { coerce } from '../../agent-runtime/policy';
import { qaSystemPrompt } from './prompt';
import {
  SENTIMENTS,
  type AnalysisField,
  type AnalysisUsage,
  type CallForAnalysis,
  type FieldValue,
  type NodeAnalysis,
  type QaSettings,
  type SuccessResult,
} from './types';

/** An OpenAI-compatible chat completions API and the model to ask. */
export interface ModelEndpoint {
  baseUrl?: string;
  model: string;
  apiKey?: string;
  /** Authentication from a credential (sent with every request). */
  headers?: Record<string, string>;
  /** How long one request may take (default 60 s). */
  timeoutMs?: number;
}

/** One QA node's analysis by a model: its result, or the reason there is none; tokens either way. */
export interface ModelAnalysisOutcome {
  analysis: NodeAnalysis | { error: string };
  usage: AnalysisUsage;
}

const DEFAULT_TIMEOUT_MS = 60_000;

const Answer = z.object({
  summary: z.string().default(''),
  tags: z
    .array(
      z.union([
        z.string().transform((tag) => ({ tag, reason: '' })),
        z.object({ tag: z.string(), reason: z.string().default('') }),
      ]),
    )
    .default([]),
  score: z.coerce.number().default(5),
  overall_sentiment: z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(SENTIMENTS as ['positive', 'neutral', 'negative']))
    .catch('neutral'),
  fields: z.record(z.string(), z.unknown()).default({}),
  success: z.object({ value: z.unknown(), reason: z.string().default('') }).optional(),
});

/**
 * Asks the model once for the node's analysis (JSON mode) and reads its answer. A failed or timed
 * out request, or an answer that is not the JSON asked for, is the node's `error`: it is recorded
 * on the run, not retried. Tokens are counted from the response's `usage` whatever it said.
 */
export async function analyzeWithModel(
  call: CallForAnalysis,
  settings: QaSettings,
  endpoint: ModelEndpoint,
  now = new Date(),
): Promise<ModelAnalysisOutcome> {
  const usage: AnalysisUsage = { model: endpoint.model, promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  const client = new OpenAI({
    baseURL: endpoint.baseUrl,
    // Local OpenAI-compatible servers often need no key, but the client insists on one.
    apiKey: endpoint.apiKey ?? 'unused',
    ...(endpoint.headers ? { defaultHeaders: endpoint.headers } : {}),
    maxRetries: 0,
  });
  const timeoutMs = endpoint.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  let content: string;
  try {
    const completion = await client.chat.completions.create(
      {
        model: endpoint.model,
        messages: [{ role: 'system', content: qaSystemPrompt(settings, call) }],
        response_format: { type: 'json_object' },
      },
      { signal: deadline },
    );
    if (completion.usage) {
      usage.promptTokens = completion.usage.prompt_tokens;
      usage.completionTokens = completion.usage.completion_tokens;
      usage.totalTokens = completion.usage.total_tokens;
    }
    content = completion.choices[0]?.message.content ?? '';
  } catch (error) {
    const reason = deadline.aborted
      ? `timed out after ${timeoutMs / 1000} s`
      : error instanceof Error
        ? error.message
        : String(error);
    return { analysis: { error: `Language model request failed: ${reason}` }, usage };
  }
  const parsed = parseAnswer(content);
  if (!parsed.success) return { analysis: { error: parsed.error }, usage };
  const answer = parsed.data;
  return {
    analysis: {
      result: {
        summary: answer.summary,
        tags: answer.tags,
        score: Number.isFinite(answer.score) ? Math.max(1, Math.min(10, Math.round(answer.score))) : 5,
        overall_sentiment: answer.overall_sentiment,
        model: endpoint.model,
        analyzed_at: now.toISOString(),
      },
      fields: Object.fromEntries(
        settings.fields.map((field) => [field.name, typedValue(field, answer.fields[field.name])]),
      ),
      ...(settings.successEvaluation && answer.success
        ? { success: successOf(settings.successEvaluation, answer.success) }
        : {}),
    },
    usage,
  };
}

type ParsedAnswer = { success: true; data: z.output<typeof Answer> } | { success: false; error: string };

/** The answer's JSON object (a Markdown code fence around it is tolerated). */
function parseAnswer(content: string): ParsedAnswer {
  const text = content
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { success: false, error: `The model's answer is not JSON: ${text.slice(0, 200)}` };
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    return { success: false, error: "The model's answer is not a JSON object" };
  }
  const parsed = Answer.safeParse(json);
  if (!parsed.success) {
    return {
      success: false,
      error: `The model's answer has the wrong shape: ${parsed.error.issues[0]?.message ?? ''}`,
    };
  }
  return { success: true, data: parsed.data };
}

function typedValue(field: AnalysisField, value: unknown): FieldValue {
  if (field.type !== 'enum') return coerce(value, field.type);
  if (typeof value !== 'string') return null;
  return (field.choices ?? []).find((choice) => choice.toLowerCase() === value.toLowerCase()) ?? null;
}

function successOf(
  evaluation: NonNullable<QaSettings['successEvaluation']>,
  answer: { value: unknown; reason: string },
): SuccessResult | undefined {
  if (evaluation.rubric === 'scale') {
    const value = coerce(answer.value, 'number');
    if (typeof value !== 'number') return undefined;
    const score = Math.max(1, Math.min(10, Math.round(value)));
    return { rubric: 'scale', value: score, successful: score >= (evaluation.threshold ?? 6), reason: answer.reason };
  }
  const value = coerce(answer.value, 'boolean');
  if (typeof value !== 'boolean') return undefined;
  return { rubric: 'pass_fail', value, successful: value, reason: answer.reason };
}
