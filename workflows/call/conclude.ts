import {
  getExternalWorkflowHandle,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { createAnalysisActivities } from '../../activities/analysis.activities';
import type { createCallConclusionActivities } from '../../activities/call-conclusion.activities';
import { ACTIVITY_POLICIES, CALL_LENGTH_POLICIES } from '../activity-policies';
import {
  campaignCallAnalysedSignal,
  type CallOutcome,
  type CampaignCallAnalysis,
  type CampaignCallLink,
} from '../definitions';
import { sendPostCallWebhooks } from '../post-call-webhooks';
import { CallStatusAttribute, DispositionAttribute } from '../search-attributes';
import type { CallEnding, CallRun } from './call-run';
import { concludeForCampaign } from './campaign-report';

/** Calls concluded since the post-call analysis existed are analysed; recorded histories replay without it. */
export const POST_CALL_ANALYSIS_PATCH = 'post-call-analysis';
/** A campaign's call analysed since campaigns sum their analyses tells its campaign what it said. */
export const CAMPAIGN_ANALYSIS_REPORT_PATCH = 'campaign-call-analysis-report';

const { analyzeRun } = proxyActivities<ReturnType<typeof createAnalysisActivities>>({
  ...ACTIVITY_POLICIES.postCallAnalysis,
  summary: 'post-call analysis',
});

/**
 * The last phase: writes the outcome in one local activity (with `simulate`, the call's
 * conversation runs in it too), tells a campaign that asked, analyses the call if its agent has a
 * QA node (a campaign is told the outcome first, then what the analysis said), and sends the
 * post-call webhooks, which can then use `annotations.*`.
 */
export async function conclude(call: CallRun, ending: CallEnding): Promise<CallOutcome> {
  const { input, state, runId } = call;
  const { callStatus, durationSeconds, conversation = null, simulate, voicemail } = ending;
  const { concludeCall } = proxyLocalActivities<ReturnType<typeof createCallConclusionActivities>>(
    CALL_LENGTH_POLICIES.callConclusion(input.maxDurationSeconds),
  );
  const analysis = patched(POST_CALL_ANALYSIS_PATCH);
  const reportsAnalysis = analysis && input.campaign !== undefined && patched(CAMPAIGN_ANALYSIS_REPORT_PATCH);
  const concluded = await concludeForCampaign(
    input,
    () => state.campaignAskedForReport,
    callStatus,
    (campaign) =>
      concludeCall({
        runId,
        callStatus,
        durationSeconds,
        conversation,
        simulate,
        campaign,
        ...(analysis && input.campaign && !campaign ? { campaignIfAnalyzed: input.campaign } : {}),
        ...(reportsAnalysis ? { reportsAnalysis } : {}),
        ...(voicemail ? { voicemail } : {}),
        ...(call.transfers.length > 0 ? { transfers: call.transfers } : {}),
      }),
  );
  if (analysis && concluded.analyze) {
    const summary = await analyze(runId);
    if (reportsAnalysis && input.campaign) await reportAnalysis(input.campaign, { runId, summary });
  }
  await sendPostCallWebhooks(runId, concluded.postCallWebhooks);
  return { runId, callStatus, durationSeconds, disposition: concluded.disposition };
}

/** Operators list calls by outcome in the Temporal UI (`CallStatus="busy"`), and its page says how it ended. */
export function showOutcome(outcome: CallOutcome): void {
  upsertSearchAttributes([
    { key: CallStatusAttribute, value: outcome.callStatus },
    { key: DispositionAttribute, value: outcome.disposition },
  ]);
  setCurrentDetails(
    `**${outcome.callStatus}** · ${outcome.durationSeconds} s · disposition ${outcome.disposition}` +
      ` · run ${outcome.runId}`,
  );
}

/** The call's analysis, in short; one that cannot be done is logged (null), and the call ends all the same. */
async function analyze(runId: number): Promise<CampaignCallAnalysis['summary']> {
  try {
    return (await analyzeRun({ runId, analysisId: 'call' })).summary ?? null;
  } catch (error) {
    log.warn('post-call analysis failed', { runId, error: String(error) });
    return null;
  }
}

/**
 * Tells the campaign, by workflow id (its latest run), what the analysis said, or that there is
 * none; it was told to expect it with the outcome. A campaign that has ended is not an error.
 */
async function reportAnalysis(campaign: CampaignCallLink, analysis: CampaignCallAnalysis): Promise<void> {
  try {
    await getExternalWorkflowHandle(campaign.parentWorkflowId).signal(campaignCallAnalysedSignal, analysis);
  } catch (error) {
    log.warn('campaign has ended; call analysis not reported', { runId: analysis.runId, error: String(error) });
  }
}
