import { log, patched, proxyLocalActivities } from '@temporalio/workflow';
import type { createPreCallFetchActivities } from '../../activities/pre-call-fetch.activities';
import { ACTIVITY_POLICIES } from '../activity-policies';
import type { CallRun } from './call-run';

const { preCallFetch } = proxyLocalActivities<ReturnType<typeof createPreCallFetchActivities>>(
  ACTIVITY_POLICIES.preCallFetch,
);

/** Calls recorded before pre-call fetch existed replay without it. */
export const PRE_CALL_FETCH_PATCH = 'pre-call-fetch';

/**
 * The agent's pre-call fetch, before the conversation (and before the dial of an outbound call):
 * its answer goes into the run's `initial_context`. A fetch that fails, or a step that cannot run
 * at all, leaves the call to go on without it.
 */
export async function fetchBeforeCall(call: CallRun): Promise<void> {
  if (!patched(PRE_CALL_FETCH_PATCH)) return;
  const { runId, input } = call;
  try {
    const result = await preCallFetch({ runId, direction: input.direction ?? 'outbound' });
    if (result.fetched && result.status === 'failed') log.warn('pre-call fetch failed; the call goes on', { runId });
  } catch (error) {
    log.warn('pre-call fetch could not run; the call goes on', { runId, error: String(error) });
  }
}
