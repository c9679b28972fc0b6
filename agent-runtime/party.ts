import type { ConversationResult, TranscriptLine } from './contract';

export type EndedBy = ConversationResult['endedBy'];

/**
 * Where the agent's words go while a policy produces them. A streaming policy (the language model
 * on a live call) hands over each sentence as soon as it is complete, so text-to-speech can start
 * before the reply is finished; the others hand over their whole text at once.
 */
export interface SpeechSink {
  /** True when sentences should be handed over as they are produced (a live call). */
  readonly streaming: boolean;
  /** The language-model request was sent (latency accounting). */
  requestSent?(): void;
  /** The first token of the reply arrived (latency accounting). */
  firstToken?(): void;
  /**
   * Pieces of the reply's text as they are produced, for a reader who wants them at once (a
   * streamed text chat): a policy that can stream calls it for each piece, then hands over the
   * whole text through `sentence` as usual.
   */
  token?(text: string): void;
  sentence(text: string): void;
}

/** What became of an utterance. */
export interface Spoken {
  /** The line for the transcript: what was actually said (up to an interruption); null for nothing. */
  line: TranscriptLine | null;
  /** The caller spoke over the agent and cut the reply short. */
  interrupted?: boolean;
  /** The call is over (before or during the utterance), and why. */
  over?: EndedBy;
  /** Listening: the caller stayed silent too long; the agent checks they are still there, then listens again. */
  idle?: boolean;
  /** Listening: the other party has not answered yet (a text chat between messages); the walk pauses. */
  awaiting?: boolean;
}

/** One agent reply being spoken. */
export interface AgentReply extends SpeechSink {
  /** Resolves once everything handed over has been said, the caller interrupted, or the call ended. */
  finish(): Promise<Spoken>;
}

export interface ReplyOptions {
  /** The node's `allow_interrupt`: whether the caller's speech may cut this reply short. */
  interruptible: boolean;
}

/**
 * The other side of the call and its clock: a simulated callee on a simulated clock, or a person
 * on a live audio stream (`voice/pipeline`). The engine asks it to speak and to listen.
 */
export interface ConversationParty {
  now(): Date;
  /** Why the call is over, if it is. */
  over(): EndedBy | undefined;
  reply(options: ReplyOptions): AgentReply;
  /** The caller's next utterance; `over` set (and no line) when the call ends first. */
  listen(): Promise<Spoken>;
  /** Seconds from the first utterance to the end of the call. */
  durationSeconds(endedBy: EndedBy): number;
}
