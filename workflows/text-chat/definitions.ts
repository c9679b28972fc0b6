/** A text chat session's input, Updates, Query and views: shared by the API, the worker and the tests. */

import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { TranscriptEntry, TranscriptLine } from '../../agent-runtime/contract';

/** A text chat session's workflow id: the run's business key. */
export const textChatWorkflowId = (runId: number): string => `text-chat-${runId}`;

/** Default of the agent's `text_chat_inactivity_timeout_seconds`. */
export const DEFAULT_TEXT_CHAT_INACTIVITY_TIMEOUT_SECONDS = 1800;

export interface TextChatWorkflowInput {
  runId: number;
  /** A session with no message for this long ends (`user_idle`). */
  inactivityTimeoutSeconds: number;
}

export type TextChatStatus = 'open' | 'ended';

/** What a client sees of a session. */
export interface TextChatView {
  runId: number;
  status: TextChatStatus;
  /** Changes with every message answered and every rewind; a message may name the one it follows. */
  revision: number;
  /** Messages of the person answered so far (after a rewind: kept). */
  turns: number;
  transcript: TranscriptEntry[];
  gatheredContext: Record<string, unknown>;
  /** Set once ended. */
  endedBy?: string;
  disposition?: string;
}

/** A view with the agent's words of the change that produced it. */
export interface TextChatReply extends TextChatView {
  reply: TranscriptLine[];
}

export interface TextChatMessage {
  text: string;
  /** The revision the sender saw; another one is refused and changes nothing. */
  expectedRevision?: number;
  /** The reply's text is relayed to this stream as it is produced (see `domain/text-chat/reply-stream`). */
  streamId?: string;
}

export interface TextChatRewind {
  /** The person's messages to keep: the session returns to just after the agent answered the last of them. */
  toTurn: number;
  expectedRevision?: number;
}

export interface TextChatEnd {
  expectedRevision?: number;
}

/** The Update failure types the API answers 409 for (the session's state refuses the request). */
export const TEXT_CHAT_CONFLICT = 'TextChatConflict';
/** The Update failure type of a request the session's state cannot take as given (422). */
export const TEXT_CHAT_INVALID = 'TextChatInvalid';
/** The agent could not take its turn (its model or the database failed); nothing changed. */
export const TEXT_CHAT_TURN_FAILED = 'TextChatTurnFailed';

/** Answers once the agent's opening (its first words, if any) is known. */
export const openTextChatUpdate = defineUpdate<TextChatReply>('openTextChat');
export const sendTextChatMessageUpdate = defineUpdate<TextChatReply, [TextChatMessage]>('sendTextChatMessage');
export const rewindTextChatUpdate = defineUpdate<TextChatReply, [TextChatRewind]>('rewindTextChat');
/** Answers once the run is concluded (transcript, disposition, usage written). */
export const endTextChatUpdate = defineUpdate<TextChatReply, [TextChatEnd]>('endTextChat');
export const textChatQuery = defineQuery<TextChatView>('textChat');
