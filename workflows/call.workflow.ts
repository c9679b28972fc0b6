import { setWorkflowOptions } from '@temporalio/workflow';
import { CallRun, type CallPhase, type PhaseResult } from './call/call-run';
import { conclude, showOutcome } from './call/conclude';
import { converse } from './call/converse';
import { registerCallHandlers } from './call/handlers';
import { ring } from './call/ring';
import { transfer } from './call/transfer';
import { voicemail } from './call/voicemail';
import type { CallOutcome, CallWorkflowInput } from './definitions';
import { versioningBehavior } from './versioning-behavior';

/** Each phase of a call, by name: it leads to the next one or to the call's ending. */
const PHASES: Record<CallPhase, (call: CallRun) => Promise<PhaseResult>> = { ring, converse, voicemail, transfer };

/**
 * One call of a run (id `call-<runId>`, or a campaign's child id): dials once, follows the provider's
 * status signals with bounded waits, asks the provider when they stop coming, runs the conversation
 * of a connected call (or leaves a machine its voicemail message), transfers the caller to a person
 * when the conversation asks (and carries the conversation on when nobody takes the call), hangs up at `max_call_duration`,
 * and records exactly one terminal status. An inbound call (`direction: 'inbound'`) rang us and is
 * already answered: nothing is dialed. Its state and what its signals change are in `CallState`
 * (workflows/call/state.ts); each phase has its file under workflows/call/.
 */
// Minutes long: it ends on the build it started on, so its code never changes under it.
setWorkflowOptions(versioningBehavior('PINNED'), callWorkflow);
export async function callWorkflow(input: CallWorkflowInput): Promise<CallOutcome> {
  const call = new CallRun(input);
  registerCallHandlers(call.state);
  let step: PhaseResult = { next: 'ring' };
  while ('next' in step) step = await PHASES[step.next](call);
  const outcome = await conclude(call, step.end);
  showOutcome(outcome);
  return outcome;
}
