import { getExternalWorkflowHandle, log } from '@temporalio/workflow';
import { campaignCallFinishedSignal, type CallWorkflowInput, type TerminalCallStatus } from '../definitions';

/**
 * Tells a campaign call's parent how the call ended, by workflow id (so the signal reaches the
 * parent's latest run after continue-as-new). A parent that has ended (cancelled) is not an error.
 */
export async function reportToCampaign(input: CallWorkflowInput, outcome: TerminalCallStatus): Promise<void> {
  const link = input.campaign;
  if (!link) return;
  try {
    await getExternalWorkflowHandle(link.parentWorkflowId).signal(campaignCallFinishedSignal, {
      ...link,
      runId: input.runId,
      outcome,
    });
  } catch (error) {
    log.warn('campaign could not be told of the call outcome', { ...link, error: String(error) });
  }
}
