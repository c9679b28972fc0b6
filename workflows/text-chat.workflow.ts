import { allHandlersFinished, condition, log, setWorkflowOptions } from '@temporalio/workflow';
import { showOutcome } from './call/conclude';
import { sendPostCallWebhooks } from './post-call-webhooks';
import type { TextChatView, TextChatWorkflowInput } from './text-chat/definitions';
import { registerTextChatHandlers } from './text-chat/handlers';
import { TextChatSession } from './text-chat/session';
import { concludeSession, takeStep } from './text-chat/steps';
import { spokenDuration } from './spoken-duration';
import { versioningBehavior } from './versioning-behavior';

/**
 * One text chat session with an agent (id `text-chat-<runId>`): the same conversation engine as a
 * call, one step per message. The agent opens (its first words, if it speaks first); each message
 * is an Update answered with the agent's reply; a rewind returns to an earlier turn; the session
 * ends at an end node, when the person ends it, or after `inactivityTimeoutSeconds` with no
 * message (a durable timer, which a restarted worker resumes). Then the run is concluded as a
 * call's: transcript, gathered context, disposition, tool calls and usage, and its post-call
 * webhooks. Its state and what its Updates change are in `TextChatSession`.
 */
// A session is short-lived: it ends on the build it started on, so its code never changes under it.
setWorkflowOptions(versioningBehavior('PINNED'), textChatWorkflow);
export async function textChatWorkflow(input: TextChatWorkflowInput): Promise<TextChatView> {
  const session = new TextChatSession(input.runId);
  const startedAt = new Date().toISOString();
  registerTextChatHandlers(session, startedAt);
  let opened = true;
  try {
    await takeStep(session, startedAt);
  } catch (error) {
    log.error('text chat could not be opened', { runId: input.runId, error: String(error) });
    opened = false;
  }
  const timeoutMs = input.inactivityTimeoutSeconds * 1000;
  while (opened && !session.ended) {
    // The quiet period counts from the agent's last answer: no timer runs while it answers.
    if (session.busy) {
      await condition(() => !session.busy);
      continue;
    }
    const seen = session.activity;
    const stirred = await condition(() => session.ended || session.activity !== seen, timeoutMs, {
      summary: `wait for a message, at most ${spokenDuration(timeoutMs)}`,
    });
    if (stirred) continue;
    try {
      await takeStep(session, startedAt, { ended: 'user_idle' });
    } catch {
      // The next quiet period tries again.
    }
  }
  const webhooks = await concludeSession(session);
  await sendPostCallWebhooks(input.runId, webhooks);
  const view = session.view();
  showOutcome({
    runId: input.runId,
    callStatus: session.result ? 'completed' : 'error',
    durationSeconds: 0,
    disposition: view.disposition ?? 'error',
  });
  await condition(allHandlersFinished);
  return view;
}
