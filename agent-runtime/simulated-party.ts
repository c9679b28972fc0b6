import type { TranscriptLine } from './contract';
import type { AgentReply, ConversationParty, EndedBy, Spoken } from './party';
import { SimulatedCallee } from './simulated-callee';

/** Simulated seconds an utterance takes: a one-second pause plus 2.5 words a second (150 per minute). */
export const utteranceSeconds = (text: string): number =>
  1 + Math.ceil(text.trim().split(/\s+/).filter(Boolean).length / 2.5);

export interface SimulatedPartyOptions {
  startedAt: Date;
  initialContext: Record<string, unknown>;
  maxDurationSeconds: number;
  /** When the simulated callee hangs up. */
  talkSeconds: number;
  /** A conversation carried on (after a transfer that did not connect): its clock and the callee's replies so far. */
  resumeAt?: { elapsedSeconds: number; calleeReplies: number };
}

/**
 * The simulator's text-only callee on a simulated clock: every utterance advances the clock by
 * `utteranceSeconds`, and the call is over once the clock passes `maxDurationSeconds`
 * ('max_duration') or the callee's `talkSeconds` ('callee_hangup'), the earlier one if both.
 * Nothing is said once the call is over.
 */
export class SimulatedParty implements ConversationParty {
  private elapsed: number;
  private ended: EndedBy | undefined;
  private readonly callee: SimulatedCallee;
  private readonly limits: [number, EndedBy][];

  constructor(private readonly options: SimulatedPartyOptions) {
    this.callee = new SimulatedCallee(options.initialContext, options.resumeAt?.calleeReplies ?? 0);
    this.elapsed = options.resumeAt?.elapsedSeconds ?? 0;
    this.limits = [
      [options.maxDurationSeconds, 'max_duration'],
      [options.talkSeconds, 'callee_hangup'],
    ];
  }

  now(): Date {
    return new Date(this.options.startedAt.getTime() + this.elapsed * 1000);
  }

  over(): EndedBy | undefined {
    this.ended ??= this.limits.filter(([limit]) => this.elapsed > limit).sort(([a], [b]) => a - b)[0]?.[1];
    return this.ended;
  }

  reply(): AgentReply {
    const parts: string[] = [];
    return {
      streaming: false,
      sentence: (text) => parts.push(text),
      finish: () => Promise.resolve(this.say('assistant', parts.join(' '))),
    };
  }

  listen(): Promise<Spoken> {
    // The callee only answers while the call lasts: its reply is taken only if it gets to say it.
    if (this.over()) return Promise.resolve({ line: null, over: this.ended });
    return Promise.resolve(this.say('user', this.callee.reply()));
  }

  durationSeconds(endedBy: EndedBy): number {
    const cap =
      endedBy === 'end_node' ? Infinity : (this.limits.find(([, reason]) => reason === endedBy)?.[0] ?? Infinity);
    return Math.min(this.elapsed, Math.max(0, cap));
  }

  private say(role: TranscriptLine['role'], text: string): Spoken {
    const over = this.over();
    if (over) return { line: null, over };
    if (text.trim() === '') return { line: null };
    const line = { at: this.now().toISOString(), role, text: text.trim() };
    this.elapsed += utteranceSeconds(text);
    return { line };
  }
}
