import { condition, log, patched, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { createCallActivities } from '../../activities/call.activities';
import type { ConversationResult } from '../../agent-runtime/contract';
import type { TransferStatus } from '../../telephony/provider';
import { ACTIVITY_POLICIES } from '../activity-policies';
import type { RunTransfer } from '../definitions';
import { spokenDuration } from '../spoken-duration';
import { endWith, hangUpAndEnd, TRANSFER_FAILED_DISPOSITION, type CallRun, type PhaseResult } from './call-run';
import { LIVE_TRANSFER_CALLBACK_PATCH } from './converse';

type CallActivities = ReturnType<typeof createCallActivities>;

// Starting, canceling and looking up a transfer: short provider calls, safe to repeat (the start is
// keyed by the tool call, a cancel of a settled transfer changes nothing).
const { startTransfer, cancelTransfer, getTransferStatus, releaseTransfer } = proxyLocalActivities<CallActivities>(
  ACTIVITY_POLICIES.providerCall,
);

/** A transfer that did not join releases the caller it may have left waiting (a Twilio conference). */
export const TRANSFER_RELEASE_PATCH = 'transfer-release';

/** The disposition of a conversation that stopped for a transfer the caller hung up on. */
const CALLER_HUNG_UP = 'user_hangup';
/** The disposition of a live call hung up after a transfer that did not connect (older histories). */

/** What the model is told when a transfer does not connect, by how it ended. */
const FAILURE_REASONS: Partial<Record<RunTransfer['outcome'], string>> = {
  busy: 'the line was busy',
  'no-answer': 'nobody answered',
  failed: 'the call to the destination failed',
};

/**
 * The conversation asked to hand the caller to a person: ring the destination until it answers,
 * fails or the ring timeout (a durable timer) passes, looking the transfer up when its events stop
 * coming. Answered: the caller talks with the person until the call ends, and the run is
 * `transferred`. Not answered: the transfer is canceled and the conversation carries on, the model
 * told why (`transfer_failed: ...`). A caller who hangs up meanwhile ends the call.
 */
export async function transfer(call: CallRun): Promise<PhaseResult> {
  const { state, runId } = call;
  const asked = call.transferAsked as ConversationResult & { transfer: NonNullable<ConversationResult['transfer']> };
  call.transferAsked = undefined;
  const request = asked.transfer;
  const startedAt = Date.now();
  const started = await startTransfer({
    runId,
    providerCallId: state.callId,
    destination: request.destination,
    mode: request.mode,
    ...(request.announcement ? { announcement: request.announcement } : {}),
    ringTimeoutSeconds: request.ringTimeoutSeconds,
    idempotencyKey: `${workflowInfo().workflowId}:transfer-${request.sequence}`,
  });
  let outcome: RunTransfer['outcome'];
  let reason: string | undefined;
  if ('refused' in started) {
    outcome = 'failed';
    reason = `the transfer could not start: ${started.refused}`;
  } else {
    const status = await ringOut(call, started.transferId, startedAt + request.ringTimeoutSeconds * 1000);
    outcome = status === 'answered' ? 'joined' : status === 'ringing' ? 'no-answer' : status;
    reason = FAILURE_REASONS[outcome];
    if (outcome !== 'joined' && patched(TRANSFER_RELEASE_PATCH)) {
      await releaseTransfer({ runId, providerCallId: state.callId, transferId: started.transferId });
    }
  }
  const attempt: RunTransfer = {
    destination: request.destination,
    mode: request.mode,
    outcome,
    ring_seconds: Math.round((Date.now() - startedAt) / 1000),
    started_at: new Date(startedAt).toISOString(),
    ...(reason ? { reason: `transfer_failed: ${reason}` } : {}),
  };
  call.transfers.push(attempt);

  if (attempt.outcome === 'joined') {
    state.transferConnected();
    return joined(call, asked);
  }
  if (state.ended || attempt.outcome === 'canceled') {
    // The caller hung up while the destination rang.
    await call.finalStatus();
    const final = state.final ?? { status: 'completed' as const, durationSeconds: 0 };
    return endWith({
      callStatus: final.status,
      durationSeconds: final.durationSeconds ?? 0,
      conversation: final.status === 'completed' ? { ...asked, disposition: CALLER_HUNG_UP } : null,
      transfers: call.transfers,
    });
  }
  const live = call.input.conversation === 'live';
  if (live && !patched(LIVE_TRANSFER_CALLBACK_PATCH)) return liveHangUp(call, asked);
  const resume = {
    previous: asked,
    transferFailed: attempt.reason ?? 'transfer_failed',
    attempts: call.transfers.length,
  };
  // Live: the API process holding the stream carries the conversation on (it asks by query) and
  // reports it again; the simulated one carries on in the converse phase's local activity.
  if (live) state.conversationResumed(resume);
  else call.resume = resume;
  return { next: 'converse' };
}

/**
 * Waits for the transfer to settle until the ring timeout, looking it (and the call) up at each
 * poll interval; a destination still ringing then is canceled. Its last status: `ringing` means it
 * rang out, `canceled` that the caller left.
 */
async function ringOut(call: CallRun, transferId: string, deadline: number): Promise<TransferStatus> {
  const { state, runId } = call;
  const settled = () => state.ended || (state.transferStatus(transferId) ?? 'ringing') !== 'ringing';
  while (!settled()) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    const wait = Math.min(call.pollMs, remaining);
    const summary = `wait for the transfer to be answered, at most ${spokenDuration(remaining)} more`;
    if (await condition(settled, wait, { summary })) break;
    await lookUp(call, transferId);
    await call.reconcile();
  }
  if (!settled()) {
    try {
      await cancelTransfer({ runId, providerCallId: state.callId, transferId });
    } catch (error) {
      log.warn('transfer cancel failed', { runId, error: String(error) });
    }
    // Answered at the last moment: the person has the caller.
    await lookUp(call, transferId);
    if (state.transferStatus(transferId) === 'answered') return 'answered';
    return 'ringing';
  }
  if (state.ended && state.transferStatus(transferId) !== 'answered') return 'canceled';
  return state.transferStatus(transferId) ?? 'ringing';
}

async function lookUp(call: CallRun, transferId: string): Promise<void> {
  const { state, runId } = call;
  try {
    const update = await getTransferStatus({ runId, providerCallId: state.callId, transferId });
    if (update) state.transferStatusReported(update);
  } catch (error) {
    log.warn('transfer status look-up failed', { runId, error: String(error) });
  }
}

/**
 * A live call whose transfer did not connect, in histories from before live conversations carried
 * on: the call is hung up cleanly rather than left in silence; the run keeps the attempt.
 */
function liveHangUp(call: CallRun, asked: ConversationResult): Promise<PhaseResult> {
  return hangUpAndEnd(call, { ...asked, disposition: TRANSFER_FAILED_DISPOSITION });
}

/** The person took the caller: the call lasts as long as they talk, within `max_call_duration` from now. */
async function joined(call: CallRun, asked: ConversationResult): Promise<PhaseResult> {
  const { input, state } = call;
  await call.waitUntil(
    () => state.ended,
    Date.now() + input.maxDurationSeconds * 1000,
    'the transferred call to end',
    true,
  );
  return hangUpAndEnd(call, asked);
}
