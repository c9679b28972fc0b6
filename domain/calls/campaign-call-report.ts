import type { CampaignCallLink, CampaignCallResult, TerminalCallStatus } from '../../workflows/definitions';

/** How a call is linked to the campaign that dialed it, as its conclusion is told. */
export interface CampaignOfCall {
  /** A campaign's call: the campaign is told how it ended once the outcome is written. */
  campaign?: CampaignCallLink;
  /**
   * A campaign's call not yet reported: the campaign is told here too if the call is analysed
   * next, so that it learns the outcome before the analysis, not from the call's completion after it.
   */
  campaignIfAnalyzed?: CampaignCallLink;
  /** The call reports its analysis to its campaign after: the campaign is told to expect it. */
  reportsAnalysis?: boolean;
}

/**
 * What a concluded call tells its campaign now, once its outcome is written and it is known
 * whether it is analysed (`analyze`); null when the campaign is not told here.
 */
export function campaignReportOf(
  call: CampaignOfCall & { runId: number; callStatus: TerminalCallStatus },
  analyze: boolean | undefined,
): CampaignCallResult | null {
  const campaign = call.campaign ?? (analyze ? call.campaignIfAnalyzed : undefined);
  if (!campaign) return null;
  const analysisFollows = call.reportsAnalysis === true && analyze;
  return {
    ...campaign,
    runId: call.runId,
    outcome: call.callStatus,
    ...(analysisFollows ? { analysisFollows } : {}),
  };
}
