import { allHandlersFinished, condition, continueAsNew, setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import { campaignActivities } from './campaign/activities';
import { dispatchDials } from './campaign/dispatch';
import { registerCampaignHandlers } from './campaign/handlers';
import { recordReports } from './campaign/record-reports';
import { CampaignRun } from './campaign/run';
import { showState } from './campaign/writes';
import type { CampaignProgress, CampaignWorkflowInput } from './definitions';
import { versioningBehavior } from './versioning-behavior';

/** After a cancel, how long the campaign waits for its calls in flight to report their outcomes. */
const IN_FLIGHT_DRAIN_MS = 15 * 60_000;
/** Once it has ended, how long the campaign waits for the analyses of its last calls, for its details. */
const ANALYSIS_DRAIN_MS = 10 * 60_000;

/**
 * One campaign (`campaign-<id>`): dials every contact of its source through child call workflows,
 * at most `max_concurrency` at a time, inside the schedule's windows; retries busy / no-answer /
 * voicemail after a durable timer; pauses itself when the circuit breaker trips; obeys pause,
 * resume, cancel and configuration Updates; completes when every contact has a final outcome.
 * Its state and decisions are in `CampaignTracker`, shared with the dispatch, the handlers and the
 * writes through one `CampaignRun`; this function is the loop that carries them out.
 */
// Days long: it moves to the current build at its next workflow task, so a change to it needs a patch.
setWorkflowOptions(versioningBehavior('AUTO_UPGRADE'), campaignWorkflow);
export async function campaignWorkflow(input: CampaignWorkflowInput): Promise<CampaignProgress> {
  const { campaignId } = input;
  const { openCampaign, logCampaignEvent, closeCampaignRetries } = campaignActivities;
  const run = new CampaignRun(campaignId, workflowInfo().workflowId, input.carry);
  const { tracker, writes, calls } = run;
  registerCampaignHandlers(run);

  // A wrong-state update can arrive before the first activity: transitions queue behind it.
  await writes.serially(async () => tracker.open(await openCampaign({ campaignId })));
  run.opened = true;
  showState(tracker.state);

  /** Every start, handler and write this run began has finished. */
  const settle = async (): Promise<void> => {
    await calls.startsSettled();
    await condition(allHandlersFinished);
    await writes.settled();
  };

  for (;;) {
    if (tracker.closed) break;
    tracker.looked();
    await recordReports(run);
    let heldUntil: number | null = null;
    if (tracker.state === 'running') {
      heldUntil = await dispatchDials(run);
      const opening = tracker.windowToAnnounce(heldUntil);
      if (opening !== null) {
        const nextOpen = new Date(opening).toISOString();
        await logCampaignEvent({
          campaignId,
          entry: {
            level: 'info',
            event: 'waiting_for_schedule_window',
            message: `Outside the calling window; next window opens at ${nextOpen}`,
            details: { next_open_at: nextOpen },
          },
        });
      }
    }
    if (tracker.closed) break;
    if (tracker.allDone(calls.startingCount)) {
      await writes.transition(['running', 'paused'], 'completed', {
        level: 'info',
        event: 'campaign_completed',
        message: `Campaign completed: ${tracker.counters?.processed_rows ?? 0} contacts processed`,
        details: { ...tracker.counters },
      });
      break;
    }
    if (workflowInfo().continueAsNewSuggested) {
      await settle();
      await calls.askToReport();
      // Reports are not carried over: record every one, up to the moment the run continues.
      while (tracker.hasReports) await recordReports(run);
      if (!tracker.closed) {
        await continueAsNew<typeof campaignWorkflow>({ campaignId, carry: tracker.carryOver() });
      }
      break;
    }
    const wakeAt = tracker.wakeAt(heldUntil);
    if (wakeAt === Infinity) {
      run.waitingFor = undefined;
      run.showDetails();
      await condition(() => tracker.shouldWake());
    } else {
      const summary = tracker.wakeSummary(wakeAt, Date.now());
      run.waitingFor = summary;
      run.showDetails();
      await condition(() => tracker.shouldWake(), Math.max(1, wakeAt - Date.now()), { summary });
    }
  }

  // Cancelled: calls in flight are not cut off; their outcomes are still recorded, so no attempt is
  // left dialing (bounded, in case a call never reports). A completed campaign has none in flight.
  if (tracker.inFlightCount > 0) await condition(() => tracker.inFlightCount === 0, IN_FLIGHT_DRAIN_MS);
  await settle();
  while (tracker.hasReports) await recordReports(run);
  // Retries still waiting are never dialed: their contacts keep their last outcome, as final.
  if (tracker.hasWaiting) {
    const closed = await closeCampaignRetries({ campaignId });
    tracker.retriesClosed(closed.counters, closed.outcomes);
  }
  // The campaign has ended; its details still take in the analyses of its last calls (bounded).
  run.waitingFor = undefined;
  if (tracker.awaitingAnalysisCount > 0) {
    run.showDetails(tracker.progress());
    await condition(() => tracker.awaitingAnalysisCount === 0, ANALYSIS_DRAIN_MS);
  }
  // The result is the campaign's final summary: its counters and outcomes.
  const summary = tracker.progress();
  run.showDetails(summary);
  return summary;
}
