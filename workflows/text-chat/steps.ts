import { ApplicationFailure, log, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { TextChatInput } from '../../agent-runtime';
import type { createTextChatActivities } from '../../activities/text-chat.activities';
import type { PostCallWebhook } from '../../domain/webhooks/post-call-nodes';
import { ACTIVITY_POLICIES } from '../activity-policies';
import { TEXT_CHAT_TURN_FAILED } from './definitions';
import type { TextChatSession } from './session';

type TextChatActivities = ReturnType<typeof createTextChatActivities>;

// The agent's turn may call a language model and tools: an activity of its own, retried on
// another worker if this one dies. The conclusion is a database write, run where the workflow runs.
const { textChatStep } = proxyActivities<TextChatActivities>({
  ...ACTIVITY_POLICIES.textChatStep,
  summary: "the agent's turn",
});
const { concludeTextChat } = proxyLocalActivities<TextChatActivities>(ACTIVITY_POLICIES.databaseWrite);

/**
 * The agent takes one step of the session (its opening when `next` is unset): the session is told
 * it began and how it ended. A step that fails changes nothing; it is refused to the caller as
 * `TEXT_CHAT_TURN_FAILED`. With `streamId`, the reply's text is relayed there as it is produced.
 */
export async function takeStep(
  session: TextChatSession,
  startedAt: string,
  next?: TextChatInput,
  streamId?: string,
): Promise<void> {
  session.begin();
  try {
    const step = await textChatStep({
      runId: session.runId,
      checkpoint: session.checkpoint ?? null,
      startedAt,
      ...(next ? { next } : {}),
      ...(streamId ? { streamId } : {}),
    });
    session.answered(step);
  } catch (error) {
    session.failed();
    log.warn('text chat step failed', { runId: session.runId, error: String(error) });
    throw ApplicationFailure.create({
      type: TEXT_CHAT_TURN_FAILED,
      message: 'The agent could not answer; nothing changed, and the request may be sent again',
      nonRetryable: true,
    });
  }
}

/**
 * Writes the session's run as a call's conclusion does, and returns the post-call webhooks to send.
 * A session whose agent could not even open it ends as `error`.
 */
export async function concludeSession(session: TextChatSession): Promise<PostCallWebhook[]> {
  const concluded = await concludeTextChat({ runId: session.runId, conversation: session.result ?? null });
  session.concluded(concluded.disposition);
  return concluded.postCallWebhooks;
}
