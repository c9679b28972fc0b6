import { proxyLocalActivities } from '@temporalio/workflow';
import type { createCampaignReportActivities } from '../../activities/campaign-report.activities';
import type { CallWorkflowInput, TerminalCallStatus } from '../definitions';

// Retried until the server takes the signal: a campaign's later run learns of a call only this way.
const { reportCampaignCall } = proxyLocalActivities<ReturnType<typeof createCampaignReportActivities>>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Tells a campaign call's parent how the call ended, by workflow id (so the signal reaches the
 * parent's latest run after continue-as-new), from a local activity in the workflow task that
 * completes the call. A parent that has ended (cancelled) is not an error.
 */
export async function reportToCampaign(input: CallWorkflowInput, outcome: TerminalCallStatus): Promise<void> {
  if (input.campaign) await reportCampaignCall({ ...input.campaign, runId: input.runId, outcome });
}

/** Whether a call tells its campaign how it ended: the campaign learns it from the call's completion unless it asked. */
export const reportsToCampaign = (input: CallWorkflowInput, asked: boolean): boolean =>
  input.campaign !== undefined && asked;
