import type { TranscriptLine } from './contract';

/** What a summary may hold at most: a few seconds of speech to the person before the caller joins. */
const MAX_CALLER_LINES = 2;
const MAX_FACTS = 4;
const MAX_CHARS = 400;

/**
 * What the person a warm transfer reaches hears before the caller is joined, when the tool has no
 * message of its own: the caller's last words and the facts gathered so far, built from the
 * conversation alone, so that it is the same wherever and however often it is made.
 */
export function transferSummary(transcript: readonly TranscriptLine[], gathered: Record<string, unknown>): string {
  const said = transcript
    .filter((line) => line.role === 'user' && line.text.trim())
    .slice(-MAX_CALLER_LINES)
    .map((line) => sentence(line.text));
  const facts = Object.entries(gathered)
    .filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value) && String(value).trim())
    .slice(0, MAX_FACTS)
    .map(([name, value]) => `${name.replace(/_/g, ' ')}: ${String(value).trim()}`);
  const parts = ['I have a caller for you.'];
  if (said.length > 0) parts.push(`They said: ${said.join(' ')}`);
  if (facts.length > 0) parts.push(`${sentence(facts.join('; '))}`);
  parts.push('Connecting you now.');
  return clipSummary(parts.join(' '));
}

/** A summary cut to a few seconds of speech. */
export function clipSummary(summary: string): string {
  const text = summary.trim();
  return text.length <= MAX_CHARS ? text : `${text.slice(0, MAX_CHARS - 1).trimEnd()}…`;
}

const sentence = (text: string): string => {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
};
