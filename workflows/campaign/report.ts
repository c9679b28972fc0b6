import { getExternalWorkflowHandle, log, proxyLocalActivities } from '@temporalio/workflow';
import type { createCampaignReportActivities } from '../../activities/campaign-report.activities';
import { campaignCallFinishedSignal, type CallWorkflowInput, type TerminalCallStatus } from '../definitions';

// Retried until the server takes the signal: a campaign's later run learns of a call only this way.
const { reportCampaignCall } = proxyLocalActivities<ReturnType<typeof createCampaignReportActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Tells a campaign call's parent how the call ended, by workflow id (so the signal reaches the
 * parent's latest run after continue-as-new). A parent that has ended (cancelled) is not an error.
 * Children that report from a local activity (`when-asked`, once asked, and `local-activity`) send
 * it in the workflow task that completes the call; children started before that (no
 * `campaignReport` in their input) signal from the workflow, as their histories recorded, at the
 * cost of one more workflow task.
 */
export async function reportToCampaign(input: CallWorkflowInput, outcome: TerminalCallStatus): Promise<void> {
  const link = input.campaign;
  if (!link) return;
  const result = { ...link, runId: input.runId, outcome };
  if (input.campaignReport !== undefined) {
    await reportCampaignCall(result);
    return;
  }
  try {
    await getExternalWorkflowHandle(link.parentWorkflowId).signal(campaignCallFinishedSignal, result);
  } catch (error) {
    log.warn('campaign could not be told of the call outcome', { ...link, error: String(error) });
  }
}

/**
 * Whether a call tells its campaign how it ended: always, unless the campaign learns it from the
 * call's completion (`when-asked`) and has not asked for a signal.
 */
export const reportsToCampaign = (input: CallWorkflowInput, asked: boolean): boolean =>
  input.campaign !== undefined && (input.campaignReport !== 'when-asked' || asked);
