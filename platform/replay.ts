import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';

/**
 * Replays one recorded history against the workflow code of this checkout. Throws
 * `DeterminismViolationError` when the code would issue other commands than the history recorded:
 * the change would break executions that are running now, and needs `patched()`.
 */
/** `history`: a History object, or the JSON that `historyToJSON` (and the Temporal UI's download) produce. */
export async function replayHistory(history: unknown, workflowId: string): Promise<void> {
  await Worker.runReplayHistory(
    { workflowsPath: require.resolve('../workflows'), replayName: `replay-${workflowId}` },
    history,
    workflowId,
  );
}

/** Downloads the history of a workflow execution (the latest run unless a run id is given) as JSON. */
export async function downloadHistory(client: Client, workflowId: string, runId?: string): Promise<string> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  return historyToJSON(history);
}
