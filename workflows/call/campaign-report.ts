import { proxyLocalActivities } from '@temporalio/workflow';
import type { createCampaignReportActivities } from '../../activities/campaign-report.activities';
import { ACTIVITY_POLICIES } from '../activity-policies';
import type { CampaignCallLink, CallWorkflowInput, TerminalCallStatus } from '../definitions';

// Retried until the server takes the signal: a campaign's later run learns of a call only this way.
const { reportCampaignCall } = proxyLocalActivities<ReturnType<typeof createCampaignReportActivities>>(
  ACTIVITY_POLICIES.campaignReport,
);

/**
 * Everything a campaign's call does to tell its campaign how it ended. The campaign run that
 * started the call learns the outcome from the call's completion, which costs no signal. A run
 * about to continue as new cannot see that completion: it asks its calls in flight
 * (`campaignReportRequestedSignal`), and an asked call signals the campaign by workflow id, which
 * reaches the campaign's next run, once its outcome is written: in `conclude`'s own local activity
 * when asked before, else in one of its own right after. Both are retried until Temporal takes the
 * signal; a repeat after a crash changes nothing, since the campaign counts only the dial in flight.
 * (A call the campaign finds already started, after a reset, is read from its run in PostgreSQL.)
 *
 * `conclude` writes the outcome, and reports it to the campaign it is given (or, when the call is
 * analysed after, to its own campaign: then it says so with `campaignReported`).
 */
export async function concludeForCampaign<T extends { campaignReported?: boolean }>(
  input: CallWorkflowInput,
  asked: () => boolean,
  outcome: TerminalCallStatus,
  conclude: (campaign: CampaignCallLink | undefined) => Promise<T>,
): Promise<T> {
  const reportedInConclusion = input.campaign !== undefined && asked();
  const concluded = await conclude(reportedInConclusion ? input.campaign : undefined);
  // Asked while the conclusion ran (and not told there because the call is analysed next).
  if (input.campaign && !reportedInConclusion && !concluded.campaignReported && asked()) {
    await reportCampaignCall({ ...input.campaign, runId: input.runId, outcome });
  }
  return concluded;
}
