import type { ConversationCheckpoint, ConversationResult, TranscriptLine } from '../../agent-runtime/contract';
import { textChatStatus, textChatStepOf } from '../../domain/text-chat/chat-step';

/** What a text chat's step shows of the conversation engine's step. */

const usage = { model: 'offline', promptTokens: 0, completionTokens: 0, totalTokens: 0 };
const line = (role: TranscriptLine['role'], text: string): TranscriptLine => ({
  at: '2026-01-01T00:00:00Z',
  role,
  text,
});

const checkpoint = (transcript: TranscriptLine[]): ConversationCheckpoint => ({
  nodeId: 'ask',
  calleeRepliesInNode: 0,
  turns: transcript.filter((item) => item.role === 'assistant').length,
  transcript,
  gatheredContext: {},
  nodePath: ['start', 'ask'],
  toolCalls: [],
  usage,
});

describe('a text chat step', () => {
  const first = [line('assistant', 'Hello, how can I help?')];
  const second = [...first, line('user', 'What are your hours?'), line('assistant', 'Nine to five.')];

  it("replies with the agent's first words on the first step", () => {
    const paused = checkpoint(first);
    expect(textChatStepOf({ paused }, null)).toEqual({ reply: first, paused });
  });

  it("replies with the agent's lines said since the checkpoint, not the person's", () => {
    const paused = checkpoint(second);
    expect(textChatStepOf({ paused }, checkpoint(first))).toEqual({ reply: [second[2]], paused });
  });

  it("skips the tool calls an ended conversation's transcript has between its lines", () => {
    const ended: ConversationResult = {
      transcript: [
        ...second.slice(0, 2),
        { at: '2026-01-01T00:00:01Z', role: 'tool', text: 'hours() → ok 200', tool_call: 1 },
        second[2]!,
        line('assistant', 'Goodbye.'),
      ],
      gatheredContext: {},
      disposition: 'answered',
      endedBy: 'end_node',
      nodePath: ['start', 'ask', 'end'],
      usage,
    };
    expect(textChatStepOf({ ended }, checkpoint(first))).toEqual({
      reply: [second[2], line('assistant', 'Goodbye.')],
      ended,
    });
  });

  it('is completed with a conversation, and error without one', () => {
    expect(textChatStatus(null)).toBe('error');
    expect(
      textChatStatus({
        transcript: [],
        gatheredContext: {},
        disposition: 'answered',
        endedBy: 'end_node',
        nodePath: [],
        usage,
      }),
    ).toBe('completed');
  });
});
