import { proxyLocalActivities, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { createCallConclusionActivities } from '../../activities/call-conclusion.activities';
import { CALL_LENGTH_POLICIES } from '../activity-policies';
import type { CallOutcome } from '../definitions';
import { sendPostCallWebhooks } from '../post-call-webhooks';
import { CallStatusAttribute, DispositionAttribute } from '../search-attributes';
import type { CallEnding, CallRun } from './call-run';
import { concludeForCampaign } from './campaign-report';

/**
 * The last phase: writes the outcome in one local activity (with `simulate`, the call's
 * conversation runs in it too), tells a campaign that asked, and sends the post-call webhooks.
 */
export async function conclude(call: CallRun, ending: CallEnding): Promise<CallOutcome> {
  const { input, state, runId } = call;
  const { callStatus, durationSeconds, conversation = null, simulate, voicemail } = ending;
  const { concludeCall } = proxyLocalActivities<ReturnType<typeof createCallConclusionActivities>>(
    CALL_LENGTH_POLICIES.callConclusion(input.maxDurationSeconds),
  );
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
        ...(voicemail ? { voicemail } : {}),
        ...(call.transfers.length > 0 ? { transfers: call.transfers } : {}),
      }),
  );
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
