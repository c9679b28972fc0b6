import { Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { converseStep, TextParty, type TextChatInput } from '../agent-runtime';
import type { ConversationCheckpoint, ConversationResult } from '../agent-runtime/contract';
import { conversationInput } from '../agent-runtime/conversation-input';
import type { AgentVersionCache } from '../domain/agents/version-cache';
import { conversationSourceOf } from '../domain/calls/conversation-source';
import { maxCallDurationOf } from '../domain/calls/start-call';
import { loadConversationTools } from '../domain/tools/conversation-tools';
import { textChatStatus, textChatStepOf, type TextChatStep } from '../domain/text-chat/chat-step';
import { ReplyPublisher } from '../domain/text-chat/reply-stream';
import { createToolRunnerDeps } from '../domain/tools/tool-runner-deps';
import type { Secrets } from '../telephony/secrets';
import type { createCallActivities } from './call.activities';
import { createCallRecords } from '../domain/calls/call-records';
import type { CallSettings } from '../domain/calls/call-settings';
import type { PostCallWebhook } from '../domain/webhooks/post-call-nodes';
import { callDisposition } from '../workflows/definitions';

export type { TextChatStep };

export interface TextChatActivityDeps {
  dataSource: DataSource;
  secrets: Secrets;
  settings: CallSettings;
  versions: AgentVersionCache;
  /** Writes a run's outcome as a call's conclusion does. */
  finalizeRun: ReturnType<typeof createCallActivities>['finalizeRun'];
}

export interface TextChatStepInput {
  runId: number;
  /** Where the conversation stands; null: it has not begun (the agent speaks first, if it does). */
  checkpoint: ConversationCheckpoint | null;
  /** The person's message, or the session's end; unset on the first step. */
  next?: TextChatInput;
  /** ISO time the session began. */
  startedAt: string;
  /** Where the reply's text goes as it is produced (a reader streaming it); unset: nowhere. */
  streamId?: string;
}

export interface ConcludedTextChat {
  disposition: string;
  postCallWebhooks: PostCallWebhook[];
}

/**
 * The agent's side of a text chat: each step continues the conversation engine from where the
 * session's workflow keeps it, with the run's agent version, tools and language model (the offline
 * policy without one), exactly as a call's conversation does.
 */
export function createTextChatActivities({
  dataSource,
  secrets,
  settings,
  versions,
  finalizeRun,
}: TextChatActivityDeps) {
  const records = createCallRecords(dataSource);
  const toolDeps = createToolRunnerDeps({
    dataSource,
    secrets,
    config: { ALLOW_PRIVATE_WEBHOOKS: settings.allowPrivateWebhooks ?? false },
  });

  return {
    /** The agent's turn after the person's message (or its first words, or its last after an end). */
    async textChatStep({ runId, checkpoint, next, startedAt, streamId }: TextChatStepInput): Promise<TextChatStep> {
      const run = await records.load(runId);
      const version = await versions.get(run.agentVersionId);
      const source = conversationSourceOf(run, version, run.callDispositionCodes);
      const publisher = streamId ? new ReplyPublisher(dataSource, streamId, Context.current().info.attempt) : undefined;
      const party = new TextParty(next, new Date(startedAt), undefined, publisher && ((text) => publisher.push(text)));
      const step = await converseStep(conversationInput(source, maxCallDurationOf(version), { kind: 'text' }), {
        llm: settings.llm,
        tools: await loadConversationTools(dataSource, toolDeps, run, source.workflowDefinition),
        party,
        ...(checkpoint ? { resume: checkpoint } : {}),
      });
      await publisher?.flush();
      return textChatStepOf(step, checkpoint);
    },

    /**
     * Writes the session's outcome as a call's: transcript, gathered context, disposition, tool
     * calls and token usage. A text chat has no call minutes: its duration is 0 and only its tokens
     * are charged. With no conversation (the agent could not open the session) its status is `error`.
     */
    async concludeTextChat({
      runId,
      conversation,
    }: {
      runId: number;
      conversation: ConversationResult | null;
    }): Promise<ConcludedTextChat> {
      const callStatus = textChatStatus(conversation);
      const { postCallWebhooks } = await finalizeRun({ runId, callStatus, durationSeconds: 0, conversation });
      return { disposition: callDisposition(callStatus, conversation), postCallWebhooks };
    },
  };
}
