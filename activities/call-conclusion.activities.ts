import { log } from '@temporalio/activity';
import type { ConversationResult } from '../agent-runtime/contract';
import { CallSetupError, ProviderRefusedError } from '../domain/calls/call-errors';
import { campaignReportOf, type CampaignOfCall } from '../domain/calls/campaign-call-report';
import {
  callDisposition,
  type RunTransfer,
  type TerminalCallStatus,
  type VoicemailMessage,
} from '../workflows/definitions';
import type { createCallActivities, FinalizedRun } from './call.activities';
import type { createCampaignReportActivities } from './campaign-report.activities';
import { countCallEnded } from './call-metrics';

type CallSteps = Pick<ReturnType<typeof createCallActivities>, 'runConversation' | 'finalizeRun'>;
type ReportStep = Pick<ReturnType<typeof createCampaignReportActivities>, 'reportCampaignCall'>;

/** Tries of a simulated conversation run here, as the workflow gives `runConversation`. */
const CONVERSATION_TRIES = 2;

export interface ConcludeCallInput extends CampaignOfCall {
  runId: number;
  callStatus: TerminalCallStatus;
  durationSeconds: number;
  /** The conversation of a connected call, as the workflow has it; null otherwise. */
  conversation: ConversationResult | null;
  /**
   * A simulated call that had already ended when it was known to be answered: its conversation
   * runs here, first (`conversation` is then ignored).
   */
  simulate?: { maxDurationSeconds: number };
  /** The voicemail message left on a machine that answered. */
  voicemail?: VoicemailMessage;
  /** The call's transfer attempts, oldest first. */
  transfers?: RunTransfer[];
}

export interface ConcludedCall extends FinalizedRun {
  /** `gathered_context.mapped_call_disposition` as written. */
  disposition: string;
  /** The campaign was told the outcome here. */
  campaignReported?: boolean;
}

/**
 * The last step of a call, in one local activity: one marker and one trip through the workflow
 * sandbox instead of one per step. Each step is safe to run again after a crash: the outcome of a
 * completed run is kept, and the campaign counts only the dial in flight.
 */
export function createCallConclusionActivities({
  runConversation,
  finalizeRun,
  reportCampaignCall,
}: CallSteps & ReportStep) {
  /** The simulated conversation; an engine that fails leaves the call without one, as in the workflow. */
  const simulate = async (runId: number, maxDurationSeconds: number): Promise<ConversationResult | null> => {
    for (let tries = 1; ; tries += 1) {
      try {
        return await runConversation({ runId, maxDurationSeconds });
      } catch (error) {
        const retryable = !(error instanceof CallSetupError || error instanceof ProviderRefusedError);
        if (!retryable || tries >= CONVERSATION_TRIES) {
          log.error('conversation failed', { runId, error: String(error) });
          return null;
        }
      }
    }
  };

  return {
    async concludeCall(input: ConcludeCallInput): Promise<ConcludedCall> {
      const { runId, callStatus, durationSeconds, voicemail, transfers } = input;
      const conversation = input.simulate
        ? await simulate(runId, input.simulate.maxDurationSeconds)
        : input.conversation;
      const finalized = await finalizeRun({
        runId,
        callStatus,
        durationSeconds,
        conversation,
        ...(voicemail ? { voicemail } : {}),
        ...(transfers ? { transfers } : {}),
      });
      countCallEnded(callStatus);
      const report = campaignReportOf(input, finalized.analyze);
      if (report) await reportCampaignCall(report);
      return {
        ...finalized,
        disposition: callDisposition(callStatus, conversation, voicemail !== undefined),
        ...(report ? { campaignReported: true } : {}),
      };
    },
  };
}
