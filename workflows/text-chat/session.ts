import type { ConversationCheckpoint, ConversationResult, TranscriptLine } from '../../agent-runtime/contract';
import type { TextChatStep } from '../../activities/text-chat.activities';
import {
  TEXT_CHAT_CONFLICT,
  TEXT_CHAT_INVALID,
  type TextChatReply,
  type TextChatStatus,
  type TextChatView,
} from './definitions';

/** Why the session refuses a request: the failure type the API maps to a status, and a sentence. */
export interface Refusal {
  type: typeof TEXT_CHAT_CONFLICT | typeof TEXT_CHAT_INVALID;
  message: string;
}

const conflict = (message: string): Refusal => ({ type: TEXT_CHAT_CONFLICT, message });

/**
 * One text chat session's state, with no Temporal calls in it: where the conversation waits after
 * each of the person's messages (so a rewind can return there), the revision every change moves
 * on, whether the agent is answering, and how the session ended. The workflow's handlers ask it
 * whether a request may go ahead, then tell it what happened.
 */
export class TextChatSession {
  /** `waypoints[n]`: the conversation just after the agent answered the person's n-th message (0: its opening). */
  private waypoints: ConversationCheckpoint[] = [];
  private conversation: ConversationResult | undefined;
  private dispositionWritten: string | undefined;
  private revisionNumber = 0;
  private answering = false;
  /** Moves with every request taken and answered: the inactivity timer restarts on it. */
  private stirs = 0;
  private lastReply: TranscriptLine[] = [];

  constructor(readonly runId: number) {}

  /** Why a change that expects `expectedRevision` cannot go ahead now; null when it can. */
  refusal(expectedRevision: number | undefined): Refusal | null {
    if (!this.opened) return conflict('The session is still opening');
    if (this.ended) return conflict('The session has ended');
    if (this.answering) return conflict('The agent is still answering the previous message');
    if (expectedRevision !== undefined && expectedRevision !== this.revisionNumber) {
      return conflict(`The session is at revision ${this.revisionNumber}, not ${expectedRevision}`);
    }
    return null;
  }

  /** Why a rewind to `toTurn` cannot go ahead; null when it can. */
  rewindRefusal(toTurn: number, expectedRevision: number | undefined): Refusal | null {
    const refused = this.refusal(expectedRevision);
    if (refused) return refused;
    if (!Number.isInteger(toTurn) || toTurn < 0 || toTurn >= this.turns) {
      return {
        type: TEXT_CHAT_INVALID,
        message:
          this.turns === 0
            ? 'There is no earlier turn to return to: no message has been answered yet'
            : `to_turn must be an earlier turn, from 0 to ${this.turns - 1}`,
      };
    }
    return null;
  }

  /** The agent starts on a step (its opening, a message, the end). */
  begin(): void {
    this.answering = true;
    this.stirs += 1;
  }

  /** The agent's step is done: the conversation waits for the next message, or it ended. */
  answered(step: TextChatStep): void {
    if ('paused' in step) this.waypoints.push(step.paused);
    else this.conversation = step.ended;
    this.lastReply = step.reply;
    if (this.waypoints.length > 1 || this.conversation) this.revisionNumber += 1;
    this.answering = false;
    this.stirs += 1;
  }

  /** The agent's step failed: nothing changed, and the session takes messages again. */
  failed(): void {
    this.answering = false;
    this.stirs += 1;
  }

  /**
   * Back to just after the agent answered the person's `toTurn`-th message. The tool calls made
   * since stay in the run's log and their tokens stay counted: they happened.
   */
  rewind(toTurn: number): void {
    const current = this.checkpoint;
    const target = this.waypoints[toTurn];
    if (!current || !target) throw new Error(`no turn ${toTurn} to rewind to`);
    this.waypoints = [
      ...this.waypoints.slice(0, toTurn),
      { ...target, toolCalls: current.toolCalls, usage: current.usage },
    ];
    this.lastReply = [];
    this.revisionNumber += 1;
    this.stirs += 1;
  }

  /** The run's outcome is written. */
  concluded(disposition: string): void {
    this.dispositionWritten = disposition;
  }

  /** Where the conversation waits now; undefined before the opening or once ended. */
  get checkpoint(): ConversationCheckpoint | undefined {
    return this.conversation ? undefined : this.waypoints.at(-1);
  }

  get opened(): boolean {
    return this.waypoints.length > 0 || this.conversation !== undefined;
  }

  get ended(): boolean {
    return this.conversation !== undefined;
  }

  /** The ended conversation, for the run's conclusion. */
  get result(): ConversationResult | undefined {
    return this.conversation;
  }

  get isConcluded(): boolean {
    return this.dispositionWritten !== undefined;
  }

  get busy(): boolean {
    return this.answering;
  }

  get activity(): number {
    return this.stirs;
  }

  get revision(): number {
    return this.revisionNumber;
  }

  /** The person's messages answered and kept. */
  get turns(): number {
    if (this.conversation) return this.conversation.transcript.filter((line) => line.role === 'user').length;
    return Math.max(0, this.waypoints.length - 1);
  }

  view(): TextChatView {
    const status: TextChatStatus = this.ended ? 'ended' : 'open';
    const current = this.conversation ?? this.checkpoint;
    return {
      runId: this.runId,
      status,
      revision: this.revisionNumber,
      turns: this.turns,
      transcript: current?.transcript ?? [],
      gatheredContext: current?.gatheredContext ?? {},
      ...(this.conversation ? { endedBy: this.conversation.endedBy } : {}),
      ...(this.dispositionWritten !== undefined ? { disposition: this.dispositionWritten } : {}),
    };
  }

  /** The view, with the agent's words of the last step. */
  reply(): TextChatReply {
    return { ...this.view(), reply: this.lastReply };
  }
}
