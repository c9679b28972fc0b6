import { condition, log, proxyLocalActivities } from '@temporalio/workflow';
import type { createCallActivities } from '../../activities/call.activities';
import type { ConversationResult } from '../../agent-runtime/contract';
import { ACTIVITY_POLICIES } from '../activity-policies';
import type { ConversationResume } from '../../agent-runtime/contract';
import type { CallWorkflowInput, RunTransfer, TerminalCallStatus, VoicemailMessage } from '../definitions';
import { spokenDuration } from '../spoken-duration';
import { CallState } from './state';

type CallActivities = ReturnType<typeof createCallActivities>;

// The short provider and database calls run as local activities, in the worker that runs the
// workflow: no task queue round trip and a marker instead of three history events each. Each is
// safe to run again after a crash (dialing is keyed by attempt; the others are idempotent).

// Provider look-ups and hang-ups: short, retried a little; a failure falls back to waiting.
const { getCallStatus, hangupCall } = proxyLocalActivities<CallActivities>(ACTIVITY_POLICIES.providerCall);

const DEFAULT_STATUS_POLL_SECONDS = 15;
/**
 * Once a call is answered its look-ups back off, doubling from the ring interval up to this: the
 * webhook is the primary path, and a look-up every 15 s of every answered call costs a worker about
 * one core per 5,000 calls (docs/BENCHMARKS.md). A lost final webhook is noticed within it.
 */
const DEFAULT_ANSWERED_STATUS_POLL_MAX_SECONDS = 120;
/** After hanging up an overrunning call, how long its final status may take to arrive. */
export const HANGUP_GRACE_MS = 10_000;

/** How a call ends: what its conclusion writes. */
export interface CallEnding {
  callStatus: TerminalCallStatus;
  durationSeconds: number;
  /** The conversation of a connected call (none by default). */
  conversation?: ConversationResult | null;
  /** A simulated call that had already ended when it was known to be answered: its conversation runs in the conclusion. */
  simulate?: { maxDurationSeconds: number };
  /** The voicemail message left on a machine that answered. */
  voicemail?: VoicemailMessage;
  /** The call's transfer attempts, oldest first. */
  transfers?: RunTransfer[];
}

/** The phases of a call, by name: each leads to another or to the ending. */
export type CallPhase = 'ring' | 'converse' | 'voicemail' | 'transfer';

/** What a phase leads to: the next phase, or the call's ending. */
export type PhaseResult = { next: CallPhase } | { end: CallEnding };

export const endWith = (ending: CallEnding): PhaseResult => ({ end: ending });

/** The disposition of a call hung up after a transfer that did not connect and was not carried on. */
export const TRANSFER_FAILED_DISPOSITION = 'transfer_failed';

/**
 * Hangs the call up if it is still up, waits for its final status and ends with the given
 * conversation when the call completed.
 */
export async function hangUpAndEnd(call: CallRun, conversation: ConversationResult): Promise<PhaseResult> {
  const { state } = call;
  if (!state.ended) {
    await call.hangup();
    await call.finalStatus();
  }
  const final = state.final ?? { status: 'completed' as const, durationSeconds: 0 };
  return endWith({
    callStatus: final.status,
    durationSeconds: final.durationSeconds ?? 0,
    conversation: final.status === 'completed' ? conversation : null,
    transfers: call.transfers,
  });
}

/**
 * One call as its workflow follows it: its input, its state, and the steps on the provider every
 * phase uses (look the call up, hang up, wait with bounded waits).
 */
export class CallRun {
  readonly state = new CallState();
  /** The conversation stopped for a transfer: the transfer phase carries it out. */
  transferAsked: ConversationResult | undefined;
  /** A transfer did not connect: the conversation carries on from where it stopped. */
  resume: ConversationResume | undefined;
  /** Every transfer attempt of the call, oldest first. */
  readonly transfers: RunTransfer[] = [];
  /** How often an unanswered wait looks the call up. */
  readonly pollMs: number;
  private readonly answeredPollMaxMs: number;

  constructor(readonly input: CallWorkflowInput) {
    this.pollMs = (input.statusPollSeconds ?? DEFAULT_STATUS_POLL_SECONDS) * 1000;
    // Never more often than while ringing.
    this.answeredPollMaxMs = Math.max(
      this.pollMs,
      (input.answeredStatusPollMaxSeconds ?? DEFAULT_ANSWERED_STATUS_POLL_MAX_SECONDS) * 1000,
    );
  }

  get runId(): number {
    return this.input.runId;
  }

  /** Asks the provider instead of guessing when no webhook came. */
  async reconcile(): Promise<void> {
    const { runId, state } = this;
    try {
      const update = await getCallStatus({ runId, providerCallId: state.callId });
      if (update) state.statusReported(update, Date.now());
    } catch (error) {
      log.warn('call status look-up failed', { runId, error: String(error) });
    }
  }

  /** Hangs up; a failure is logged, and the status look-ups that follow tell how the call ended. */
  async hangup(): Promise<void> {
    const { runId } = this;
    try {
      await hangupCall({ runId, providerCallId: this.state.callId });
    } catch (error) {
      log.warn('hang-up failed', { runId, error: String(error) });
    }
  }

  /**
   * Waits for `done` until `deadline` (workflow time), looking the call up every poll interval, or,
   * with `backOff` (an answered call), at intervals doubling from it up to the answered maximum;
   * `waitingFor` names the wait in the Temporal UI ("answer", "hang-up").
   */
  async waitUntil(done: () => boolean, deadline: number, waitingFor: string, backOff = false): Promise<void> {
    let interval = this.pollMs;
    while (!done()) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return;
      const wait = Math.min(interval, remaining);
      const summary =
        wait < remaining
          ? `wait for ${waitingFor}; ask ${this.input.provider ?? 'the provider'} in ${spokenDuration(wait)}`
          : `wait for ${waitingFor}, at most ${spokenDuration(wait)} more`;
      if (await condition(done, wait, { summary })) return;
      await this.reconcile();
      if (backOff) interval = Math.min(interval * 2, this.answeredPollMaxMs);
    }
  }

  /** After a hang-up (ours or the other side's): the provider's final status, within a grace period. */
  async finalStatus(): Promise<void> {
    await this.waitUntil(() => this.state.ended, Date.now() + HANGUP_GRACE_MS, 'the final status');
  }
}
