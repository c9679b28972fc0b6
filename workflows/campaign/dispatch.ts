import { campaignActivities, dialRuleActivities, summarizedActivities } from './activities';
import type { CampaignRun } from './run';
import { PAGE_SIZE, ROUTE_RETRY_MS, type Dispatch } from './tracker';

/**
 * Fills free slots: due retries first, then the next contacts in id order, paged from PostgreSQL
 * by a cursor; screens them against the do-not-call list and the frequency caps, prepares the
 * runs of those that may be dialed and starts their calls. Returns the earliest window opening
 * that held a contact back, if any.
 */
export async function dispatchDials(run: CampaignRun): Promise<number | null> {
  const { tracker, calls, campaignId } = run;
  const dispatch = tracker.beginDispatch(Date.now());
  while (tracker.takeContacts(dispatch)) {
    const after = tracker.fetchedUpTo;
    const { fetchCampaignContacts } = summarizedActivities(`fetch up to ${PAGE_SIZE} contacts after contact ${after}`);
    tracker.addPage(await fetchCampaignContacts({ campaignId, after, limit: PAGE_SIZE }));
  }
  if (dispatch.batch.length === 0) return dispatch.heldUntil;

  tracker.launch(dispatch);
  const screened = await dialRuleActivities.screenCampaignDials({
    campaignId,
    attempts: dispatch.batch.map(({ contactId, attempt }) => ({ contactId, attempt })),
  });
  tracker.counted(screened.counters);
  tracker.screened(dispatch, screened.dials);
  if (dispatch.batch.length === 0) return null;
  const dials = dispatch.batch.length === 1 ? '1 dial' : `${dispatch.batch.length} dials`;
  const { prepareCampaignAttempts } = summarizedActivities(`prepare ${dials}: attempts and runs`);
  const prepared = await prepareCampaignAttempts({
    campaignId,
    attempts: dispatch.batch.map(({ contactId, attempt }) => ({ contactId, attempt })),
  });
  tracker.counted(prepared.counters);
  if (prepared.routeError !== null) {
    await holdUnroutable(run, dispatch, prepared.routeError);
    return null;
  }
  tracker.routed();
  for (const dial of prepared.prepared) {
    const link = tracker.inFlightLink(dial.contactId, dial.attempt);
    if (!link) continue;
    if (!dial.ok) tracker.receive({ ...link, runId: null, outcome: 'error', initiationError: dial.error });
    else calls.start(dial, link);
  }
  return null;
}

/**
 * Nothing can be dialed (the organization has no usable configuration or agent version): the
 * batch waits to be tried again; the third failure in a row fails the campaign.
 */
async function holdUnroutable(
  { tracker, writes, campaignId }: CampaignRun,
  dispatch: Dispatch,
  error: string,
): Promise<void> {
  const { consecutiveFailures, fails } = tracker.holdUnroutable(dispatch, Date.now());
  const details = { error, consecutive_failures: consecutiveFailures };
  if (fails) {
    await writes.transition(['running', 'paused'], 'failed', {
      level: 'error',
      event: 'campaign_failed',
      message: `Campaign failed: ${error}`,
      details,
    });
    return;
  }
  await campaignActivities.logCampaignEvent({
    campaignId,
    entry: {
      level: 'warning',
      event: 'call_initiation_failed',
      message: `No call can be placed: ${error}; trying again in ${ROUTE_RETRY_MS / 1000}s`,
      details,
    },
  });
}
