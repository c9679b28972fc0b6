import type { TranscriptLine } from './contract';
import type { AgentReply, ConversationParty, EndedBy, Spoken } from './party';

/** What a text chat gives the walk next: the person's message, or the session's end (they left, or went quiet). */
export type TextChatInput = { text: string } | { ended: Extract<EndedBy, 'callee_hangup' | 'user_idle'> };

/**
 * A person typing in a text chat, one step of the walk at a time: `listen` hands over the one
 * message (or end) the step was given, then answers that nothing more has come (`awaiting`), and
 * the walk pauses until the next message. Replies are written, never interrupted.
 */
export class TextParty implements ConversationParty {
  private pending: TextChatInput | undefined;
  private ended: EndedBy | undefined;

  constructor(
    next: TextChatInput | undefined,
    /** When the session began, for its length. */
    private readonly startedAt: Date,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.pending = next;
  }

  now(): Date {
    return this.clock();
  }

  over(): EndedBy | undefined {
    return this.ended;
  }

  reply(): AgentReply {
    const parts: string[] = [];
    return {
      streaming: false,
      sentence: (text) => parts.push(text),
      finish: () => Promise.resolve(this.line('assistant', parts.join(' '))),
    };
  }

  listen(): Promise<Spoken> {
    const next = this.pending;
    this.pending = undefined;
    if (!next) return Promise.resolve({ line: null, awaiting: true });
    if ('ended' in next) {
      this.ended = next.ended;
      return Promise.resolve({ line: null, over: next.ended });
    }
    return Promise.resolve(this.line('user', next.text));
  }

  durationSeconds(): number {
    return Math.max(0, Math.round((this.clock().getTime() - this.startedAt.getTime()) / 1000));
  }

  private line(role: TranscriptLine['role'], text: string): Spoken {
    const trimmed = text.trim();
    return { line: trimmed ? { at: this.clock().toISOString(), role, text: trimmed } : null };
  }
}
