import { formatTranscript } from '../../agent-runtime/policy';
import type { AnalysisField, CallForAnalysis, QaSettings } from './types';
import { callMetrics } from './call-signals';

/** The placeholders a QA prompt may use, each written `{name}` or `{{name}}`. */
export const PROMPT_PLACEHOLDERS = ['transcript', 'node_summary', 'previous_conversation_summary', 'metrics'] as const;
type Placeholder = (typeof PROMPT_PLACEHOLDERS)[number];

export const DEFAULT_QA_PROMPT = `You review phone calls made by a voice agent, for quality.

What the agent was asked to do, node by node:
{node_summary}

The caller's previous call: {previous_conversation_summary}

Measurements of the call: {metrics}

The call's transcript:
{transcript}`;

/**
 * Fills the known placeholders, in either brace style (`{{ transcript }}` or `{transcript}`), and
 * leaves every other brace alone, so a prompt may show JSON examples.
 */
export function fillPlaceholders(template: string, values: Record<Placeholder, string>): string {
  return template.replace(
    /\{\{\s*(transcript|node_summary|previous_conversation_summary|metrics)\s*\}\}|\{(transcript|node_summary|previous_conversation_summary|metrics)\}/g,
    (_match, double: string | undefined, single: string | undefined) => values[(double ?? single) as Placeholder],
  );
}

/** The placeholders' values for one call. */
export function placeholderValues(call: CallForAnalysis): Record<Placeholder, string> {
  return {
    transcript: formatTranscript(call.transcript).trim() || '(no conversation)',
    node_summary:
      call.visited.map((node) => `- ${node.name}: ${firstLine(node.prompt)}`).join('\n') || '(no nodes visited)',
    previous_conversation_summary: call.previousSummary ?? '(none)',
    metrics: JSON.stringify(callMetrics(call)),
  };
}

const firstLine = (text: string): string => {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
};

const describeField = (field: AnalysisField): string => {
  const kind =
    field.type === 'enum'
      ? `one of ${(field.choices ?? []).map((choice) => JSON.stringify(choice)).join(', ')}`
      : field.type;
  const examples = field.examples?.length ? ` Examples: ${field.examples.join('; ')}.` : '';
  return `- "${field.name}" (${kind}, or null if the call does not tell): ${field.description}${examples}`;
};

/**
 * The system message of a QA node's request: the node's prompt (or the default), filled, then the
 * answer's JSON shape, which the node cannot change since the results are read from it.
 */
export function qaSystemPrompt(settings: QaSettings, call: CallForAnalysis): string {
  const values = placeholderValues(call);
  const template = settings.systemPrompt ?? DEFAULT_QA_PROMPT;
  const filled = fillPlaceholders(template, values);
  const mentionsTranscript = /\{\{\s*transcript\s*\}\}|\{transcript\}/.test(template);
  const parts = [filled];
  if (!mentionsTranscript) parts.push(`The call's transcript:\n${values.transcript}`);
  parts.push(answerShape(settings));
  return parts.join('\n\n');
}

function answerShape(settings: QaSettings): string {
  const lines = [
    'Answer with one JSON object and nothing else, with these keys:',
    '- "summary": what happened on the call, in two or three sentences;',
    '- "tags": a list of {"tag": short_snake_case_label, "reason": why} for notable things (problems, requests, outcomes);',
    '- "score": the quality of the agent\'s handling of the call, an integer from 1 (poor) to 10 (excellent);',
    '- "overall_sentiment": the caller\'s sentiment, "positive", "neutral" or "negative";',
  ];
  if (settings.fields.length > 0) {
    lines.push('- "fields": an object with these values:', ...settings.fields.map(describeField));
  }
  const evaluation = settings.successEvaluation;
  if (evaluation) {
    const value = evaluation.rubric === 'scale' ? 'an integer from 1 (failed) to 10 (fully achieved)' : 'true or false';
    lines.push(
      `- "success": {"value": ${value}, "reason": why}, judged against these criteria: ${evaluation.criteria}`,
    );
  }
  return lines.join('\n');
}
