import { ActivityFailure, ApplicationFailure, log, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { createDialRuleActivities } from '../../activities/dial-rules.activities';
import { endWith, type CallEnding, type CallRun, type PhaseResult } from './call-run';
import { ACTIVITY_POLICIES } from '../activity-policies';
import { dialOnTurn } from './paced-dial';
import { fetchBeforeCall } from './pre-call-fetch';

// The do-not-call list and the frequency caps, just before the dial: a database check, retried until it answers.
const { checkDialRules } = proxyLocalActivities<ReturnType<typeof createDialRuleActivities>>(
  ACTIVITY_POLICIES.databaseWrite,
);

const DEFAULT_RING_TIMEOUT_SECONDS = 60;

// A local activity's final failure arrives unwrapped; a (remote) activity's inside an ActivityFailure.
const refused = (error: unknown): boolean => {
  const failure = error instanceof ActivityFailure ? error.cause : error;
  return failure instanceof ApplicationFailure && failure.type === 'ProviderRefusedError';
};

/**
 * The first phase: runs the agent's pre-call fetch, dials (an inbound call is answered already), then waits for the answer until the
 * ring timeout, and hangs up a call nobody answered as `no-answer`. A machine's answer leads to the
 * voicemail phase, a person's to the conversation.
 */
export async function ring(call: CallRun): Promise<PhaseResult> {
  const { input, state } = call;
  const unplaced = await place(call);
  if (unplaced) return endWith(unplaced);

  const ringDeadline = Date.now() + (input.ringTimeoutSeconds ?? DEFAULT_RING_TIMEOUT_SECONDS) * 1000;
  await call.waitUntil(() => state.answered || state.ended, ringDeadline, 'answer');
  if (!state.answered && !state.ended) {
    await call.hangup();
    await call.reconcile();
    state.rangOut();
  }
  if (state.machine && !state.ended) return { next: 'voicemail' };
  if (state.connected) return { next: 'converse' };
  // Nobody answered: the provider's status (busy, no-answer, failed, ...) is the outcome.
  const { final } = state;
  return endWith({ callStatus: final?.status ?? 'error', durationSeconds: final?.durationSeconds ?? 0 });
}

/** Places the call; how it ends when it cannot be placed. */
async function place(call: CallRun): Promise<CallEnding | null> {
  const { input, state, runId } = call;
  if (input.direction === 'inbound') {
    // The provider rang us and the inbound webhook's reply answered the call: nothing to dial.
    if (!input.providerCallId) return { callStatus: 'error', durationSeconds: 0 };
    state.answeredInbound(input.providerCallId, Date.now());
    await fetchBeforeCall(call);
    return null;
  }
  // A number on the do-not-call list, or over a frequency cap, is not dialed: the call ends unplaced.
  const rules = await checkDialRules({ runId, workflowId: workflowInfo().workflowId, attempt: input.attempt });
  if (!rules.dial) return { callStatus: 'canceled', durationSeconds: 0 };
  await fetchBeforeCall(call);
  let callId: string;
  try {
    callId = await dialOnTurn({ runId, workflowId: workflowInfo().workflowId, attempt: input.attempt }, input.provider);
  } catch (error) {
    log.warn('call could not be placed', { runId, error: String(error) });
    return { callStatus: refused(error) ? 'failed' : 'error', durationSeconds: 0 };
  }
  state.placed(callId, Date.now());
  return null;
}
