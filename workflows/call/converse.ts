import { condition, log, patched, proxyLocalActivities } from '@temporalio/workflow';
import type { createCallActivities } from '../../activities/call.activities';
import type { ConversationResult, ConversationResume } from '../../agent-runtime/contract';
import { CALL_LENGTH_POLICIES } from '../activity-policies';
import type { CallWorkflowInput } from '../definitions';
import { spokenDuration } from '../spoken-duration';
import { endWith, hangUpAndEnd, TRANSFER_FAILED_DISPOSITION, type CallRun, type PhaseResult } from './call-run';

/**
 * After a live call's final status, how long a conversation that started may take to be reported:
 * the stream ends with the call, then extraction and the disposition may still ask the language model.
 */
const CONVERSATION_GRACE_MS = 30_000;
/**
 * After a live transfer that did not connect, how long the conversation may take to begin again
 * (the API process holding the stream asks every second; a provider streams the caller back anew)
 * before the call is hung up rather than left in silence.
 */
const RESUME_START_MS = 30_000;
/** The disposition of a live call hung up after a transfer that did not connect. */

/** Marks histories whose conversations may stop for a transfer (older ones never did). */
export const TRANSFER_PATCH = 'call-transfer';
/** Marks histories whose live conversations may stop for a transfer (older ones hung up instead). */
export const LIVE_TRANSFER_PATCH = 'live-call-transfer';
/**
 * Marks histories whose live conversations carry on after a transfer that did not connect (older
 * ones hung up then) and may ask for another transfer.
 */
export const LIVE_TRANSFER_CALLBACK_PATCH = 'live-transfer-callback';

/**
 * A connected call's conversation, until the call ends or `max_call_duration` is reached (then the
 * call is hung up): on the media stream of a live call, or the simulator's text-only callee.
 */
export function converse(call: CallRun): Promise<PhaseResult> {
  return call.input.conversation === 'live' ? converseLive(call) : converseSimulated(call);
}

/** The conversation runs in the API process holding the media stream, which reports it by signal. */
async function converseLive(call: CallRun): Promise<PhaseResult> {
  const { input, state } = call;
  const talkDeadline = (state.answeredAt ?? Date.now()) + input.maxDurationSeconds * 1000;
  const resumed = state.liveResume.resume;
  if (resumed && state.awaitingResume) {
    const summary = `wait for the conversation to carry on, at most ${spokenDuration(RESUME_START_MS)}`;
    await condition(() => state.ended || !state.awaitingResume, RESUME_START_MS, { summary });
    if (state.awaitingResume) return hangUpUnresumed(call, resumed.previous);
  }
  // A provider whose detection runs while the call talks (Twilio's asynchronous AMD) gives its
  // verdict later: a machine then ends the conversation as one at the answer would.
  await call.waitUntil(
    () => state.ended || state.conversation !== undefined || state.machine,
    talkDeadline,
    'the conversation to end',
    true,
  );
  if (state.machine && !state.ended && !state.conversation) return { next: 'voicemail' };
  const spokenSoFar = state.conversation;
  if (
    !state.ended &&
    spokenSoFar?.endedBy === 'transfer' &&
    spokenSoFar.transfer &&
    (!call.transfers.length || patched(LIVE_TRANSFER_CALLBACK_PATCH)) &&
    patched(LIVE_TRANSFER_PATCH)
  ) {
    // The stream stays open: the caller is on the line while the destination rings.
    call.transferAsked = spokenSoFar;
    return { next: 'transfer' };
  }
  if (!state.ended) {
    // The agent ended the call (end node, silent caller) or time ran out: hang up through the
    // provider. A caller who hung up needs no hang-up; their call's final status is on its way.
    if (state.conversation?.endedBy !== 'callee_hangup') await call.hangup();
    await call.finalStatus();
  }
  // A conversation under way reports soon after the stream ends; with no stream, none will come.
  if (state.conversationUnderWay) await condition(() => state.conversation !== undefined, CONVERSATION_GRACE_MS);
  const spoken = state.conversation ?? null;
  const final = state.final ?? { status: 'completed' as const, durationSeconds: spoken?.durationSeconds ?? 0 };
  return endWith({
    callStatus: final.status,
    durationSeconds: final.durationSeconds ?? 0,
    conversation: final.status === 'completed' ? spoken : null,
  });
}

/**
 * Nobody carried the conversation on after a transfer that did not connect (the stream was gone):
 * the call is hung up rather than left in silence, and the run keeps what was said.
 */
function hangUpUnresumed(call: CallRun, previous: ConversationResult): Promise<PhaseResult> {
  return hangUpAndEnd(call, { ...previous, disposition: TRANSFER_FAILED_DISPOSITION });
}

/** The simulated conversation runs in a local activity while the call lasts. */
async function converseSimulated(call: CallRun): Promise<PhaseResult> {
  const { input, state } = call;
  const { maxDurationSeconds } = input;
  const over = state.final;
  if (over?.status === 'completed') {
    // Over before its conversation began (a simulator that talks for 0 s): talk, write, report at once.
    return endWith({
      callStatus: 'completed',
      durationSeconds: over.durationSeconds ?? 0,
      simulate: { maxDurationSeconds },
    });
  }
  const conversation = await simulatedConversation(input, call.resume);
  call.resume = undefined;
  if (conversation?.endedBy === 'transfer' && conversation.transfer && patched(TRANSFER_PATCH)) {
    call.transferAsked = conversation;
    return { next: 'transfer' };
  }
  const talkDeadline = (state.answeredAt ?? Date.now()) + maxDurationSeconds * 1000;
  await call.waitUntil(() => state.ended, talkDeadline, 'the call to end', true);
  if (!state.ended) {
    // max_call_duration reached: hang up, then take the provider's final word.
    await call.hangup();
    await call.finalStatus();
  }
  const final = state.final ?? { status: 'completed' as const, durationSeconds: maxDurationSeconds };
  return endWith({
    callStatus: final.status,
    durationSeconds: final.durationSeconds ?? 0,
    conversation: final.status === 'completed' ? conversation : null,
  });
}

/**
 * The simulated conversation of a connected call, in a local activity (the simulated callee answers
 * at once); a failed engine leaves the call without one.
 */
async function simulatedConversation(
  input: CallWorkflowInput,
  resume: ConversationResume | undefined,
): Promise<ConversationResult | null> {
  const { runConversation } = proxyLocalActivities<ReturnType<typeof createCallActivities>>(
    CALL_LENGTH_POLICIES.simulatedConversation(input.maxDurationSeconds),
  );
  try {
    return await runConversation({
      runId: input.runId,
      maxDurationSeconds: input.maxDurationSeconds,
      ...(resume ? { resume } : {}),
    });
  } catch (error) {
    log.error('conversation failed', { runId: input.runId, error: String(error) });
    // Carried on after a transfer: what was said before it still stands.
    if (resume) {
      const previous: ConversationResult = { ...resume.previous, endedBy: 'error', disposition: 'pipeline_error' };
      delete previous.transfer;
      return previous;
    }
    return null;
  }
}
