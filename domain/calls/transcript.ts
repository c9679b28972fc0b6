import { z } from 'zod';
import { formatTranscript as formatLines } from '../../agent-runtime';

const TranscriptLines = z.array(z.object({ at: z.string(), role: z.enum(['user', 'assistant']), text: z.string() }));

/** `run.logs.transcript` as text: one `[timestamp] user|assistant: text` line per utterance. */
export function formatTranscript(stored: unknown): string {
  const parsed = TranscriptLines.safeParse(stored ?? []);
  return parsed.success ? formatLines(parsed.data) : '';
}
