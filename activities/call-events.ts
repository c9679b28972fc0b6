import type { createAnalysisActivities } from './analysis.activities';
import type { createCallConclusionActivities } from './call-conclusion.activities';
import type { createCallActivities } from './call.activities';
import type { CallEventType } from './organization-events.activities';
import type { createPreCallFetchActivities } from './pre-call-fetch.activities';

type Emit = (runId: number, type: CallEventType) => Promise<void>;
type Steps = Pick<ReturnType<typeof createCallActivities>, 'placeCall'>;
type Answering = Pick<ReturnType<typeof createPreCallFetchActivities>, 'preCallFetch'>;
type Conclusion = Pick<ReturnType<typeof createCallConclusionActivities>, 'concludeCall'>;

/**
 * The call steps that mark a call's events: placing it emits `call.started`, writing its outcome
 * `call.ended`. Each event has one id per run, so a step run again emits nothing new.
 */
export function withCallEvents(steps: Steps, conclusion: Conclusion, emit: Emit): Steps & Conclusion {
  return {
    async placeCall(input) {
      const placed = await steps.placeCall(input);
      if ('providerCallId' in placed) await emit(input.runId, 'call.started');
      return placed;
    },
    async concludeCall(input) {
      const concluded = await conclusion.concludeCall(input);
      await emit(input.runId, 'call.ended');
      return concluded;
    },
  };
}

/**
 * An inbound call starts when it is answered: the first step the call workflow runs for it, the
 * pre-call fetch (whether the agent fetches or not), emits `call.started`.
 */
export function withInboundCallStarted(answering: Answering, emit: Emit): Answering {
  return {
    async preCallFetch(input) {
      if (input.direction === 'inbound') await emit(input.runId, 'call.started');
      return answering.preCallFetch(input);
    },
  };
}

type Analysis = Pick<ReturnType<typeof createAnalysisActivities>, 'analyzeRun'>;

/** The analysis step marks `call_analyzed` once it stored a result; a step run again stores and sends nothing. */
export function withAnalysisEvent(
  analysis: Analysis,
  emit: (runId: number, analysisId: string) => Promise<void>,
): Analysis {
  return {
    async analyzeRun(input) {
      const result = await analysis.analyzeRun(input);
      if (result.analyzed) await emit(input.runId, input.analysisId);
      return result;
    },
  };
}
