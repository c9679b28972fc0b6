import { coerce } from '../../agent-runtime/policy';
import { OFFLINE_MODEL } from '../../agent-runtime/usage';
import { excerpt, lexiconSentiment, observedTags } from './call-signals';
import type {
  AnalysisField,
  CallForAnalysis,
  FieldValue,
  NodeAnalysis,
  QaSettings,
  QaTag,
  Sentiment,
  SuccessResult,
} from './types';

/**
 * The analysis without a language model: modest, but real and free. The summary is built from the
 * transcript, the sentiment from a word list, the tags from what the call shows by itself (dead
 * air, the caller asking to stop, the agent repeating itself); typed fields take the extracted
 * variables of the same name, or an enum choice the caller said. Marked `model: "offline"`.
 */
export function analyzeOffline(call: CallForAnalysis, settings: QaSettings, now = new Date()): NodeAnalysis {
  const tags = observedTags(call.transcript);
  const { sentiment } = lexiconSentiment(call.transcript);
  const summary = offlineSummary(call);
  const successful = reachedGoal(call, tags, sentiment);
  const score = qualityScore(tags, sentiment, successful);
  const fields = Object.fromEntries(
    settings.fields.map((field) => [field.name, fieldValue(field, call, { summary, successful, sentiment })]),
  );
  const evaluation = settings.successEvaluation;
  const success: SuccessResult | undefined = evaluation
    ? evaluation.rubric === 'scale'
      ? {
          rubric: 'scale',
          value: score,
          successful: score >= (evaluation.threshold ?? 6),
          reason: `Scored from the call's signals: ${describeSignals(tags, sentiment, successful)}`,
        }
      : {
          rubric: 'pass_fail',
          value: successful,
          successful,
          reason: `Judged from the call's signals: ${describeSignals(tags, sentiment, successful)}`,
        }
    : undefined;
  return {
    result: {
      summary,
      tags,
      score,
      overall_sentiment: sentiment,
      model: OFFLINE_MODEL,
      analyzed_at: now.toISOString(),
    },
    fields,
    ...(success ? { success } : {}),
  };
}

/** Who spoke how often, what the caller first said, what was gathered and how the call ended. */
export function offlineSummary(call: CallForAnalysis): string {
  const callerTurns = call.transcript.filter((line) => line.role === 'user');
  const agentTurns = call.transcript.length - callerTurns.length;
  const parts = [
    `A ${call.durationSeconds} s call: the agent spoke ${agentTurns} time${agentTurns === 1 ? '' : 's'}, the caller ${callerTurns.length}.`,
  ];
  const opening = call.transcript.find((line) => line.role === 'assistant');
  if (opening) parts.push(`The agent opened with "${excerpt(opening.text, 80)}".`);
  const first = callerTurns[0];
  if (first) parts.push(`The caller first said "${excerpt(first.text, 80)}".`);
  const gathered = Object.entries(call.gatheredContext).filter(
    ([key, value]) => !INTERNAL_KEYS.has(key) && value !== null && value !== '' && typeof value !== 'object',
  );
  if (gathered.length > 0) {
    parts.push(`Gathered: ${gathered.map(([key, value]) => `${key} = ${String(value)}`).join(', ')}.`);
  }
  const ending = call.endedBy ? ENDINGS[call.endedBy] : undefined;
  parts.push(`It ended ${ending ?? `as ${call.disposition ?? call.callStatus}`}.`);
  return parts.join(' ');
}

const INTERNAL_KEYS = new Set(['call_status', 'mapped_call_disposition', 'call_id', 'voicemail_message', 'error']);

const ENDINGS: Record<string, string> = {
  end_node: 'when the conversation reached its end',
  max_duration: 'at the maximum call duration',
  callee_hangup: 'when the caller hung up',
  user_idle: 'after the caller stopped answering',
  error: 'on an error',
  voicemail: 'after a voicemail message',
};

/** The conversation reached its end, the caller did not ask to stop and was not unhappy. */
function reachedGoal(call: CallForAnalysis, tags: QaTag[], sentiment: Sentiment): boolean {
  return (
    call.callStatus === 'completed' &&
    call.endedBy === 'end_node' &&
    sentiment !== 'negative' &&
    !tags.some((tag) => tag.tag === 'asked_to_stop')
  );
}

const PENALTIES: Record<string, number> = { dead_air: 2, asked_to_stop: 3, agent_repeated: 2 };

/** 10, less what went wrong: each tag, a negative caller, an unreached goal. */
function qualityScore(tags: QaTag[], sentiment: Sentiment, successful: boolean): number {
  let score = 10;
  for (const tag of tags) score -= PENALTIES[tag.tag] ?? 1;
  if (sentiment === 'negative') score -= 2;
  if (!successful) score -= 2;
  return Math.max(1, Math.min(10, score));
}

function describeSignals(tags: QaTag[], sentiment: Sentiment, successful: boolean): string {
  const tagged = tags.length > 0 ? tags.map((tag) => tag.tag).join(', ') : 'no problems seen';
  return `${successful ? 'reached its end' : 'did not reach its end'}; ${sentiment} caller; ${tagged}.`;
}

function fieldValue(
  field: AnalysisField,
  call: CallForAnalysis,
  presets: { summary: string; successful: boolean; sentiment: Sentiment },
): FieldValue {
  if (field.name === 'call_summary' && field.type === 'string') return presets.summary;
  if (field.name === 'call_successful' && field.type === 'boolean') return presets.successful;
  if (field.name === 'user_sentiment' && field.type === 'enum') return presets.sentiment;
  const gathered = call.gatheredContext[field.name];
  if (field.type === 'enum') {
    const choices = field.choices ?? [];
    const direct = choices.find(
      (choice) => typeof gathered === 'string' && choice.toLowerCase() === gathered.toLowerCase(),
    );
    if (direct) return direct;
    return choiceSaid(choices, call) ?? null;
  }
  return coerce(gathered, field.type);
}

/** The one choice the caller named (none, or several: unknown). */
function choiceSaid(choices: string[], call: CallForAnalysis): string | undefined {
  const said = call.transcript
    .filter((line) => line.role === 'user')
    .map((line) => ` ${line.text.toLowerCase().replace(/[^a-z0-9' ]+/g, ' ')} `)
    .join(' ');
  const named = choices.filter((choice) => said.includes(` ${choice.toLowerCase()} `));
  return named.length === 1 ? named[0] : undefined;
}
