import type { TranscriptLine } from './contract';
import type { AgentReply, ConversationParty, EndedBy, Spoken } from './party';

/** What a text chat gives the walk next: the person's message, or the session's end (they left, or went quiet). */
export type TextChatInput = { text: string } | { ended: Extract<EndedBy, 'callee_hangup' | 'user_idle'> };

/** Receives the step's reply text piece by piece: concatenated, the pieces are the reply's lines joined by line breaks. */
export type ReplyPieces = (text: string) => void;

/** A text's words, each with the spaces after it. */
const wordChunks = (text: string): string[] => text.match(/\S+\s*/g) ?? [];

/**
 * A person typing in a text chat, one step of the walk at a time: `listen` hands over the one
 * message (or end) the step was given, then answers that nothing more has come (`awaiting`), and
 * the walk pauses until the next message. Replies are written, never interrupted. With `pieces`,
 * the reply's text is also handed over as it is produced: the language model's tokens as they
 * stream, or word by word for text that comes whole (the offline policy, fixed texts).
 */
export class TextParty implements ConversationParty {
  private pending: TextChatInput | undefined;
  private ended: EndedBy | undefined;
  /** Some text of this step was handed over already: the next line starts with a line break. */
  private piecesSent = false;

  constructor(
    next: TextChatInput | undefined,
    /** When the session began, for its length. */
    private readonly startedAt: Date,
    private readonly clock: () => Date = () => new Date(),
    private readonly pieces?: ReplyPieces,
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
    const finish = () => Promise.resolve(this.line('assistant', parts.join(' ')));
    const pieces = this.pieces;
    if (!pieces) return { streaming: false, sentence: (text) => parts.push(text), finish };
    /** Tokens handed over since the last whole text: that text is theirs, already sent. */
    let streamed = '';
    const send = (text: string, startsPart: boolean) => {
      if (startsPart && parts.length > 0) pieces(' ');
      else if (startsPart && this.piecesSent) pieces('\n');
      pieces(text);
      this.piecesSent = true;
    };
    return {
      streaming: false,
      token: (text) => {
        if (!text) return;
        send(text, streamed === '');
        streamed += text;
      },
      sentence: (text) => {
        if (!streamed.trim()) wordChunks(text).forEach((chunk, index) => send(chunk, index === 0));
        streamed = '';
        parts.push(text);
      },
      finish,
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
