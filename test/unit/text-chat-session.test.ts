import type { ConversationCheckpoint, ConversationResult } from '../../agent-runtime/contract';
import { TextChatSession } from '../../workflows/text-chat/session';

const usage = (tokens: number) => ({
  model: 'offline',
  promptTokens: tokens,
  completionTokens: 0,
  totalTokens: tokens,
});
const line = (role: 'user' | 'assistant', text: string) => ({ at: '2026-01-01T00:00:00.000Z', role, text });

const checkpoint = (texts: string[], tokens: number, tools = 0): ConversationCheckpoint => ({
  nodeId: 'talk',
  calleeRepliesInNode: 0,
  turns: texts.length,
  transcript: texts.map((text, index) => line(index % 2 === 0 ? 'assistant' : 'user', text)),
  gatheredContext: {},
  nodePath: ['start', 'talk'],
  toolCalls: Array.from({ length: tools }, (_, index) => ({
    sequence: index + 1,
    tool_uuid: 't',
    function: 'f',
    arguments: {},
    status: 'ok' as const,
    duration_ms: 1,
    result_excerpt: '',
    at: '2026-01-01T00:00:00.000Z',
    node_id: 'talk',
  })),
  usage: usage(tokens),
});

const opened = (): TextChatSession => {
  const session = new TextChatSession(7);
  session.begin();
  session.answered({ reply: [line('assistant', 'Hello.')], paused: checkpoint(['Hello.'], 10) });
  return session;
};

describe("a text chat session's state", () => {
  it('refuses everything until it is open, and answers one step at a time', () => {
    const session = new TextChatSession(7);
    expect(session.refusal(undefined)).toMatchObject({
      type: 'TextChatConflict',
      message: 'The session is still opening',
    });
    session.begin();
    session.answered({ reply: [], paused: checkpoint(['Hello.'], 10) });
    expect(session.revision).toBe(0);
    expect(session.refusal(0)).toBeNull();
    session.begin();
    expect(session.refusal(undefined)?.message).toBe('The agent is still answering the previous message');
    session.failed();
    expect(session.revision).toBe(0);
    expect(session.refusal(0)).toBeNull();
  });

  it('moves the revision on with each answer and refuses a stale one', () => {
    const session = opened();
    session.begin();
    session.answered({
      reply: [line('assistant', 'Confirm.')],
      paused: checkpoint(['Hello.', 'Yes.', 'Confirm.'], 30),
    });
    expect(session.view()).toMatchObject({ revision: 1, turns: 1, status: 'open' });
    expect(session.refusal(0)?.message).toBe('The session is at revision 1, not 0');
    expect(session.reply().reply).toEqual([line('assistant', 'Confirm.')]);
  });

  it('rewinds to an earlier turn, keeping the tool calls and tokens spent since', () => {
    const session = opened();
    session.begin();
    session.answered({ reply: [], paused: checkpoint(['Hello.', 'Yes.', 'Confirm.'], 30, 2) });
    expect(session.rewindRefusal(1, undefined)).toMatchObject({ type: 'TextChatInvalid' });
    expect(session.rewindRefusal(0, 0)).toMatchObject({ type: 'TextChatConflict' });
    session.rewind(0);
    expect(session.view()).toMatchObject({ revision: 2, turns: 0, transcript: [line('assistant', 'Hello.')] });
    expect(session.checkpoint?.toolCalls).toHaveLength(2);
    expect(session.checkpoint?.usage.totalTokens).toBe(30);
    expect(session.rewindRefusal(0, undefined)?.message).toBe(
      'There is no earlier turn to return to: no message has been answered yet',
    );
  });

  it('ends with the conversation, and takes nothing more', () => {
    const session = opened();
    const result: ConversationResult = {
      transcript: [line('assistant', 'Hello.')],
      gatheredContext: { first_name: 'Ada' },
      disposition: 'user_hangup',
      endedBy: 'callee_hangup',
      nodePath: ['start'],
      usage: usage(10),
    };
    session.begin();
    session.answered({ reply: [], ended: result });
    expect(session.refusal(undefined)?.message).toBe('The session has ended');
    expect(session.isConcluded).toBe(false);
    session.concluded('user_hangup');
    expect(session.view()).toMatchObject({
      status: 'ended',
      endedBy: 'callee_hangup',
      disposition: 'user_hangup',
      gatheredContext: { first_name: 'Ada' },
    });
  });
});
