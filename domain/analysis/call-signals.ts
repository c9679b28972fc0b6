import { isOptOutRequest } from '../../agent-runtime/opt-out';
import type { TranscriptLine } from '../../agent-runtime/contract';
import type { CallForAnalysis, QaTag, Sentiment } from './types';

/**
 * What can be read off a finished call without a language model: its silences, the caller asking
 * to stop, the agent repeating itself, and the caller's sentiment from a word list.
 */

/** A silence between two turns at least this long is dead air. */
export const DEAD_AIR_SECONDS = 5;
/** Speaking pace used to estimate when a line ended, when only its start is known. */
const WORDS_PER_SECOND = 2.5;

/** The silence before each line after the first, in seconds (never negative). */
export function silences(transcript: TranscriptLine[]): number[] {
  const gaps: number[] = [];
  for (let index = 1; index < transcript.length; index += 1) {
    const before = transcript[index - 1] as TranscriptLine;
    const line = transcript[index] as TranscriptLine;
    let gap: number;
    if (before.end !== undefined && line.start !== undefined) {
      gap = line.start - before.end;
    } else {
      const spoken = wordsOf(before.text).length / WORDS_PER_SECOND;
      gap = (Date.parse(line.at) - Date.parse(before.at)) / 1000 - spoken;
    }
    gaps.push(Number.isFinite(gap) ? Math.max(0, Math.round(gap * 10) / 10) : 0);
  }
  return gaps;
}

/** The call's measurements, as the `{metrics}` placeholder gives them. */
export function callMetrics(call: CallForAnalysis): Record<string, unknown> {
  const gaps = silences(call.transcript);
  const latencies = (call.turnLatency ?? []).map((turn) => turn.total);
  return {
    call_status: call.callStatus,
    duration_seconds: call.durationSeconds,
    turns: call.transcript.length,
    caller_turns: call.transcript.filter((line) => line.role === 'user').length,
    longest_silence_seconds: gaps.length > 0 ? Math.max(...gaps) : 0,
    ...(latencies.length > 0
      ? { mean_response_ms: Math.round(latencies.reduce((sum, value) => sum + value, 0) / latencies.length) }
      : {}),
    ...(call.endedBy ? { ended_by: call.endedBy } : {}),
  };
}

const wordsOf = (text: string): string[] => text.toLowerCase().match(/[a-z']+/g) ?? [];

const normalized = (text: string): string => wordsOf(text).join(' ');

/** The tags a call shows by itself: dead air, the caller asking to stop, the agent repeating itself. */
export function observedTags(transcript: TranscriptLine[]): QaTag[] {
  const tags: QaTag[] = [];
  const gaps = silences(transcript);
  const longest = gaps.reduce((best, gap, index) => (gap > (gaps[best] ?? 0) ? index : best), 0);
  if ((gaps[longest] ?? 0) >= DEAD_AIR_SECONDS) {
    const count = gaps.filter((gap) => gap >= DEAD_AIR_SECONDS).length;
    tags.push({
      tag: 'dead_air',
      reason: `${count} silence${count === 1 ? '' : 's'} of ${DEAD_AIR_SECONDS} s or more; the longest, ${gaps[longest]} s, before turn ${longest + 2}`,
    });
  }
  const stop = transcript.find((line) => line.role === 'user' && isOptOutRequest(line.text));
  if (stop) tags.push({ tag: 'asked_to_stop', reason: `The caller said: "${excerpt(stop.text)}"` });
  const said = new Set<string>();
  for (const line of transcript) {
    if (line.role !== 'assistant') continue;
    const words = normalized(line.text);
    if (wordsOf(words).length < 3) continue;
    if (said.has(words)) {
      tags.push({ tag: 'agent_repeated', reason: `The agent said twice: "${excerpt(line.text)}"` });
      break;
    }
    said.add(words);
  }
  return tags;
}

const POSITIVE = new Set(
  'great good thanks thank perfect wonderful excellent awesome love lovely happy glad helpful appreciate appreciated nice sure fantastic brilliant amazing pleased yes absolutely definitely interested'.split(
    ' ',
  ),
);
const NEGATIVE = new Set(
  'bad terrible awful horrible hate angry annoyed annoying frustrated frustrating upset useless worst ridiculous complaint complain disappointed disappointing waste rude unacceptable stop scam wrong confused confusing problem'.split(
    ' ',
  ),
);
/** A negation flips the next word's polarity ("not happy"). */
const NEGATIONS = new Set(['not', "don't", 'dont', 'never', "isn't", "wasn't", 'no']);

/** The caller's sentiment, from the words they used: a margin of a fifth of the scored words either way. */
export function lexiconSentiment(transcript: TranscriptLine[]): {
  sentiment: Sentiment;
  positive: number;
  negative: number;
} {
  let positive = 0;
  let negative = 0;
  for (const line of transcript) {
    if (line.role !== 'user') continue;
    const words = wordsOf(line.text);
    words.forEach((word, index) => {
      const negated = index > 0 && NEGATIONS.has(words[index - 1] as string);
      if (POSITIVE.has(word)) {
        if (negated) negative += 1;
        else positive += 1;
      } else if (NEGATIVE.has(word)) {
        if (negated) positive += 1;
        else negative += 1;
      }
    });
  }
  const scored = positive + negative;
  const balance = scored === 0 ? 0 : (positive - negative) / scored;
  const sentiment: Sentiment =
    scored === 0 || Math.abs(balance) < 0.2 ? 'neutral' : balance > 0 ? 'positive' : 'negative';
  return { sentiment, positive, negative };
}

export function excerpt(text: string, length = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length - 3)}...` : flat;
}
