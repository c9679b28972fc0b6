import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  log,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  setWorkflowOptions,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { createCallConclusionActivities } from '../activities/call-conclusion.activities';
import type { createCallActivities } from '../activities/call.activities';
import type { createDialRuleActivities } from '../activities/dial-rules.activities';
import type { ConversationResult } from '../agent-runtime/contract';
import { TERMINAL_CALL_STATUSES } from '../telephony/provider';
import {
  callStatusSignal,
  campaignReportRequestedSignal,
  conversationEndedSignal,
  conversationStartedSignal,
  type CallOutcome,
  type CallStatusUpdate,
  type CallWorkflowInput,
  type TerminalCallStatus,
  type VoicemailMessage,
} from './definitions';
import { sendPostCallWebhooks } from './post-call-webhooks';
import { dialOnTurn, NON_RETRYABLE } from './call/paced-dial';
import { reportsToCampaign, reportToCampaign } from './campaign/report';
import { spokenDuration } from './spoken-duration';
import { CallStatusAttribute, DispositionAttribute } from './search-attributes';
import { versioningBehavior } from './versioning-behavior';

type CallActivities = ReturnType<typeof createCallActivities>;
type ConclusionActivities = ReturnType<typeof createCallConclusionActivities>;
type DialRuleActivities = ReturnType<typeof createDialRuleActivities>;

// The short provider and database calls run as local activities, in the worker that runs the
// workflow: no task queue round trip and a marker instead of three history events each. Each is
// safe to run again after a crash (dialing is keyed by attempt; the others are idempotent).

// The do-not-call list and the frequency caps, just before the dial: a database check, retried until it answers.
const { checkDialRules } = proxyLocalActivities<DialRuleActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

// Provider look-ups and hang-ups: short, retried a little; a failure falls back to waiting.
const { getCallStatus, hangupCall } = proxyLocalActivities<CallActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { maximumAttempts: 4, initialInterval: '1 second', nonRetryableErrorTypes: NON_RETRYABLE },
});

const DEFAULT_RING_TIMEOUT_SECONDS = 60;
const DEFAULT_STATUS_POLL_SECONDS = 15;
/**
 * Once a call is answered its look-ups back off, doubling from the ring interval up to this: the
 * webhook is the primary path, and a look-up every 15 s of every answered call costs a worker about
 * one core per 5,000 calls (docs/BENCHMARKS.md). A lost final webhook is noticed within it.
 */
const DEFAULT_ANSWERED_STATUS_POLL_MAX_SECONDS = 120;
/** After hanging up an overrunning call, how long its final status may take to arrive. */
const HANGUP_GRACE_MS = 10_000;
/**
 * After a live call's final status, how long a conversation that started may take to be reported:
 * the stream ends with the call, then extraction and the disposition may still ask the language model.
 */
const CONVERSATION_GRACE_MS = 30_000;
/**
 * Beyond a live voicemail message's estimated length, how long its playing may take to be reported:
 * text-to-speech starts it, and the stream plays it at the caller stream's pace.
 */
const LIVE_VOICEMAIL_GRACE_MS = 15_000;

const isTerminal = (status: CallStatusUpdate['status']): status is TerminalCallStatus =>
  TERMINAL_CALL_STATUSES.has(status);

// A local activity's final failure arrives unwrapped; a (remote) activity's inside an ActivityFailure.
const refused = (error: unknown): boolean => {
  const failure = error instanceof ActivityFailure ? error.cause : error;
  return failure instanceof ApplicationFailure && failure.type === 'ProviderRefusedError';
};

/**
 * One call of a run (id `call-<runId>`, or a campaign's child id): dials once, follows the provider's
 * status signals with bounded waits, asks the provider when they stop coming, runs the conversation
 * of a connected call, hangs up at `max_call_duration`, and records exactly one terminal status.
 * An inbound call (`direction: 'inbound'`) rang us and is already answered: nothing is dialed.
 */
// Minutes long: it ends on the build it started on, so its code never changes under it.
setWorkflowOptions(versioningBehavior('PINNED'), callWorkflow);
export async function callWorkflow(input: CallWorkflowInput): Promise<CallOutcome> {
  const outcome = await followCall(input);
  // Operators list calls by outcome in the Temporal UI: `CallStatus="busy"`.
  upsertSearchAttributes([
    { key: CallStatusAttribute, value: outcome.callStatus },
    { key: DispositionAttribute, value: outcome.disposition },
  ]);
  // Its page in the Temporal UI says how it ended without opening the result.
  setCurrentDetails(
    `**${outcome.callStatus}** · ${outcome.durationSeconds} s · disposition ${outcome.disposition}` +
      ` · run ${outcome.runId}`,
  );
  return outcome;
}

/** The call itself, from the dial to its outcome written. */
async function followCall(input: CallWorkflowInput): Promise<CallOutcome> {
  const { runId } = input;
  const pollMs = (input.statusPollSeconds ?? DEFAULT_STATUS_POLL_SECONDS) * 1000;
  // Never more often than while ringing.
  const answeredPollMaxMs = Math.max(
    pollMs,
    (input.answeredStatusPollMaxSeconds ?? DEFAULT_ANSWERED_STATUS_POLL_MAX_SECONDS) * 1000,
  );
  const maxDurationMs = input.maxDurationSeconds * 1000;
  let terminal: { status: TerminalCallStatus; durationSeconds?: number } | undefined;
  let answeredAt: number | undefined;
  /** A machine answered (its greeting ended with the beep). */
  let machine = false;
  let callId: string | undefined;
  /** Events that arrive before the dial returns the call's id: applied once it is known. */
  const early: CallStatusUpdate[] = [];

  // The first terminal status wins; repeats, late events and other calls' events change nothing.
  const apply = (update: CallStatusUpdate): void => {
    if (terminal) return;
    if (callId === undefined) {
      early.push(update);
      return;
    }
    if (update.providerCallId && update.providerCallId !== callId) return;
    if (isTerminal(update.status)) terminal = { status: update.status, durationSeconds: update.durationSeconds };
    else if (update.status === 'answered') {
      answeredAt ??= Date.now();
      if (update.answeredBy === 'machine') machine = true;
    }
  };
  setHandler(callStatusSignal, apply);
  // A live call's conversation, reported by the API process that holds its media stream.
  let liveStarted = false;
  let liveConversation: ConversationResult | undefined;
  setHandler(conversationStartedSignal, () => {
    liveStarted = true;
  });
  setHandler(conversationEndedSignal, (result) => {
    liveStarted = true;
    liveConversation ??= result;
  });
  // A campaign about to continue as new asks for a signal: its next run cannot see this completion.
  let reportAsked = false;
  setHandler(campaignReportRequestedSignal, () => {
    reportAsked = true;
  });
  // Read through a function: TypeScript cannot see the handler change `terminal` across awaits.
  const terminalStatus = (): TerminalCallStatus | undefined => terminal?.status;
  const terminalDuration = (): number | undefined => terminal?.durationSeconds;

  /** The last step, in one local activity; `simulate`: the call's conversation runs in it too. */
  const finish = async (
    callStatus: TerminalCallStatus,
    durationSeconds: number,
    conversation: ConversationResult | null,
    simulate?: { maxDurationSeconds: number },
    voicemail?: VoicemailMessage,
  ): Promise<CallOutcome> => {
    const { concludeCall } = proxyLocalActivities<ConclusionActivities>({
      // Room for the simulated conversation, then for the write.
      startToCloseTimeout: `${input.maxDurationSeconds + 90} seconds`,
      retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
    });
    const reportedHere = reportsToCampaign(input, reportAsked);
    const campaign = reportedHere ? input.campaign : undefined;
    const concluded = await concludeCall({
      runId,
      callStatus,
      durationSeconds,
      conversation,
      simulate,
      campaign,
      ...(voicemail ? { voicemail } : {}),
    });
    // Asked while the conclusion ran.
    if (!reportedHere && reportsToCampaign(input, reportAsked)) await reportToCampaign(input, callStatus);
    await sendPostCallWebhooks(runId, concluded.postCallWebhooks);
    return { runId, callStatus, durationSeconds, disposition: concluded.disposition };
  };

  /** Asks the provider instead of guessing when no webhook came. */
  const reconcile = async (providerCallId: string): Promise<void> => {
    try {
      const update = await getCallStatus({ runId, providerCallId });
      if (update) apply(update);
    } catch (error) {
      log.warn('call status look-up failed', { runId, error: String(error) });
    }
  };

  /** Hangs up; a failure is logged, and the status look-ups that follow tell how the call ended. */
  const hangup = async (providerCallId: string): Promise<void> => {
    try {
      await hangupCall({ runId, providerCallId });
    } catch (error) {
      log.warn('hang-up failed', { runId, error: String(error) });
    }
  };

  /**
   * Waits for `done` until `deadline` (workflow time), looking the call up every poll interval, or,
   * with `backOff` (an answered call), at intervals doubling from it up to `answeredPollMaxMs`;
   * `waitingFor` names the wait in the Temporal UI ("answer", "hang-up").
   */
  const waitUntil = async (
    providerCallId: string,
    done: () => boolean,
    deadline: number,
    waitingFor: string,
    backOff = false,
  ): Promise<void> => {
    let interval = pollMs;
    while (!done()) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return;
      const wait = Math.min(interval, remaining);
      const summary =
        wait < remaining
          ? `wait for ${waitingFor}; ask ${input.provider ?? 'the provider'} in ${spokenDuration(wait)}`
          : `wait for ${waitingFor}, at most ${spokenDuration(wait)} more`;
      if (await condition(done, wait, { summary })) return;
      await reconcile(providerCallId);
      if (backOff) interval = Math.min(interval * 2, answeredPollMaxMs);
    }
  };

  if (input.direction === 'inbound') {
    // The provider rang us and the inbound webhook's reply answered the call: nothing to dial.
    if (!input.providerCallId) return finish('error', 0, null);
    callId = input.providerCallId;
    answeredAt = Date.now();
  } else {
    // A number on the do-not-call list, or over a frequency cap, is not dialed: the call ends unplaced.
    const rules = await checkDialRules({ runId, workflowId: workflowInfo().workflowId, attempt: input.attempt });
    if (!rules.dial) return finish('canceled', 0, null);
    try {
      callId = await dialOnTurn(
        { runId, workflowId: workflowInfo().workflowId, attempt: input.attempt },
        input.provider,
      );
    } catch (error) {
      log.warn('call could not be placed', { runId, error: String(error) });
      return finish(refused(error) ? 'failed' : 'error', 0, null);
    }
  }
  early.splice(0).forEach(apply);

  const ringDeadline = Date.now() + (input.ringTimeoutSeconds ?? DEFAULT_RING_TIMEOUT_SECONDS) * 1000;
  await waitUntil(callId, () => answeredAt !== undefined || terminal !== undefined, ringDeadline, 'answer');
  if (answeredAt === undefined && !terminal) {
    await hangup(callId);
    await reconcile(callId);
    // Our own hang-up of a ringing call is reported as canceled: nobody answered.
    if (answeredAt === undefined && [undefined, 'canceled'].includes(terminalStatus())) {
      terminal = { status: 'no-answer', durationSeconds: 0 };
    }
  }

  /**
   * A machine answered: leave the agent's message after the beep, or hang up. Either way the
   * call's status is `voicemail`. On a live call the API process holding the media stream speaks
   * the message and reports the conversation ended by `voicemail`; the message counts as left only
   * then, never when the stream could not play it.
   */
  const onMachine = async (id: string) => {
    const message = input.voicemailAction === 'leave_message' ? await voicemailMessageOf(runId) : null;
    let left: VoicemailMessage | undefined;
    if (message && input.conversation === 'live') {
      if (await requestLiveVoicemail(runId, message.text)) {
        const played = () => liveConversation !== undefined || terminal !== undefined;
        await condition(played, message.seconds * 1000 + LIVE_VOICEMAIL_GRACE_MS, { summary: 'voicemail message' });
        // A box that hung up: the stream's report of what was played follows its final status.
        if (!liveConversation && terminal) await condition(() => liveConversation !== undefined, HANGUP_GRACE_MS);
      }
      if (liveConversation?.endedBy === 'voicemail') left = message;
    } else if (message) {
      // Speaking takes the message's length; a box that hangs up first ends it.
      await condition(() => terminal !== undefined, message.seconds * 1000);
      left = message;
    }
    if (!terminal) await hangup(id);
    await waitUntil(id, () => terminal !== undefined, Date.now() + HANGUP_GRACE_MS, 'the final status');
    const spokenSeconds = Math.round((Date.now() - (answeredAt ?? Date.now())) / 1000);
    return finish('voicemail', terminalDuration() ?? spokenSeconds, null, undefined, left);
  };
  if (machine && !terminal) return onMachine(callId);

  const connected = answeredAt !== undefined || terminal?.status === 'completed';
  if (!connected) return finish(terminal?.status ?? 'error', terminal?.durationSeconds ?? 0, null);

  if (input.conversation === 'live') {
    const talkDeadline = (answeredAt ?? Date.now()) + maxDurationMs;
    // A provider whose detection runs while the call talks (Twilio's asynchronous AMD) gives its
    // verdict later: a machine then ends the conversation as one at the answer would.
    await waitUntil(
      callId,
      () => terminal !== undefined || liveConversation !== undefined || machine,
      talkDeadline,
      'the conversation to end',
      true,
    );
    if (machine && !terminal && !liveConversation) return onMachine(callId);
    if (!terminal) {
      // The agent ended the call (end node, silent caller) or time ran out: hang up through the
      // provider. A caller who hung up needs no hang-up; their call's final status is on its way.
      if (liveConversation?.endedBy !== 'callee_hangup') await hangup(callId);
      await waitUntil(callId, () => terminal !== undefined, Date.now() + HANGUP_GRACE_MS, 'the final status');
    }
    // A conversation under way reports soon after the stream ends; with no stream, none will come.
    if (liveStarted && !liveConversation) await condition(() => liveConversation !== undefined, CONVERSATION_GRACE_MS);
    const spoken: ConversationResult | null = liveConversation ?? null;
    const final = terminal ?? { status: 'completed' as const, durationSeconds: spoken?.durationSeconds ?? 0 };
    return finish(final.status, final.durationSeconds ?? 0, final.status === 'completed' ? spoken : null);
  }

  if (terminal?.status === 'completed') {
    // Over before its conversation began (a simulator that talks for 0 s): talk, write, report at once.
    const { maxDurationSeconds } = input;
    return finish('completed', terminal.durationSeconds ?? 0, null, { maxDurationSeconds });
  }
  const conversation = await converse(input);
  const talkDeadline = (answeredAt ?? Date.now()) + maxDurationMs;
  await waitUntil(callId, () => terminal !== undefined, talkDeadline, 'the call to end', true);
  if (!terminal) {
    // max_call_duration reached: hang up, then take the provider's final word.
    await hangup(callId);
    await waitUntil(callId, () => terminal !== undefined, Date.now() + HANGUP_GRACE_MS, 'the final status');
  }
  const final = terminal ?? { status: 'completed' as const, durationSeconds: input.maxDurationSeconds };
  return finish(final.status, final.durationSeconds ?? 0, final.status === 'completed' ? conversation : null);
}

// The voicemail steps: a database read, and a notification to the API process holding a live call's stream.
const voicemailSteps = proxyLocalActivities<CallActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE },
});

/** The agent's voicemail message for the call; none when it has none or it cannot be read. */
async function voicemailMessageOf(runId: number): Promise<VoicemailMessage | null> {
  try {
    return await voicemailSteps.voicemailMessage({ runId });
  } catch (error) {
    log.error('voicemail message could not be read', { runId, error: String(error) });
    return null;
  }
}

/** Asks the process holding the call's media stream to speak the message; false when it could not be asked. */
async function requestLiveVoicemail(runId: number, text: string): Promise<boolean> {
  try {
    return await voicemailSteps.requestLiveVoicemail({ runId, text });
  } catch (error) {
    log.error('live voicemail could not be requested', { runId, error: String(error) });
    return false;
  }
}

/**
 * The simulated conversation of a connected call, in a local activity (the simulated callee answers
 * at once); a failed engine leaves the call without one.
 */
async function converse(input: CallWorkflowInput): Promise<ConversationResult | null> {
  const { runConversation } = proxyLocalActivities<CallActivities>({
    startToCloseTimeout: `${input.maxDurationSeconds + 60} seconds`,
    retry: { maximumAttempts: 2, nonRetryableErrorTypes: NON_RETRYABLE },
  });
  try {
    return await runConversation({ runId: input.runId, maxDurationSeconds: input.maxDurationSeconds });
  } catch (error) {
    log.error('conversation failed', { runId: input.runId, error: String(error) });
    return null;
  }
}
