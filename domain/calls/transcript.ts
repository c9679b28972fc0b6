import { z } from 'zod';
import { formatTranscript as formatLines } from '../../agent-runtime';

const TranscriptLines = z.array(
  z.object({ at: z.string(), role: z.enum(['user', 'assistant', 'tool']), text: z.string() }),
);

/** `run.logs.transcript` as text: one `[timestamp] user|assistant|tool: text` line per utterance or tool call. */
export function formatTranscript(stored: unknown): string {
  const parsed = TranscriptLines.safeParse(stored ?? []);
  return parsed.success ? formatLines(parsed.data) : '';
}
