import type {
  ConversationCheckpoint,
  ConversationResult,
  ConversationStep,
  TranscriptLine,
} from '../../agent-runtime/contract';

/** One step of a text chat: what the agent wrote, and where the conversation now waits, or how it ended. */
export type TextChatStep =
  { reply: TranscriptLine[]; paused: ConversationCheckpoint } | { reply: TranscriptLine[]; ended: ConversationResult };

/**
 * A step of the conversation engine as the chat shows it: the agent's lines said since `checkpoint`
 * (none before the first step). The checkpoint keeps what was said only; an ended conversation's
 * transcript has tool calls between, which are not counted.
 */
export function textChatStepOf(step: ConversationStep, checkpoint: ConversationCheckpoint | null): TextChatStep {
  const said = 'paused' in step ? step.paused.transcript : step.ended.transcript;
  const spoken = said.filter((line): line is TranscriptLine => line.role !== 'tool');
  const reply = spoken.slice(checkpoint?.transcript.length ?? 0).filter((line) => line.role === 'assistant');
  return 'paused' in step ? { reply, paused: step.paused } : { reply, ended: step.ended };
}

/** A text chat's status: `completed`, or `error` without a conversation (the agent could not open the session). */
export const textChatStatus = (conversation: ConversationResult | null): 'completed' | 'error' =>
  conversation ? 'completed' : 'error';
