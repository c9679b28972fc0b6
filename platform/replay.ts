import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';

/**
 * One recorded run: its workflow id, its run id when known, and its history (a History object, or
 * the JSON that `historyToJSON` and the Temporal UI's download produce).
 */
export interface RecordedRun {
  workflowId: string;
  runId?: string;
  history: unknown;
}

export interface ReplayVerdict {
  workflowId: string;
  runId?: string;
  events: number;
  /** Set when the current code does not reproduce the run's history. */
  error?: string;
}

/**
 * Replays recorded runs against the workflow code of this checkout, with one bundle for all of
 * them. A run whose verdict has an `error` would break if it were running now: the change needs
 * `patched()`. `dataConverter` decrypts the histories' payloads (unencrypted ones pass through).
 */
export async function replayRuns(
  runs: RecordedRun[],
  options: { dataConverter: DataConverter; replayName?: string; workflowBundle?: { codePath: string } },
): Promise<ReplayVerdict[]> {
  const { replayName = 'replay', workflowBundle, dataConverter } = options;
  const verdicts: ReplayVerdict[] = [];
  const byId = new Map(runs.map((run, index) => [`${run.workflowId}#${index}`, run]));
  const histories = [...byId].map(([key, run]) => ({ workflowId: key, history: run.history }));
  for await (const result of Worker.runReplayHistories(
    workflowBundle
      ? { workflowBundle, replayName, dataConverter }
      : { workflowsPath: require.resolve('../workflows'), replayName, dataConverter },
    histories,
  )) {
    const run = byId.get(result.workflowId);
    if (!run) continue;
    verdicts.push({
      workflowId: run.workflowId,
      ...(run.runId ? { runId: run.runId } : {}),
      events: (run.history as { events?: unknown[] }).events?.length ?? 0,
      ...(result.error ? { error: `${result.error.name}: ${result.error.message}` } : {}),
    });
  }
  return verdicts;
}

/** Replays one history; throws `DeterminismViolationError` when the current code would not reproduce it. */
export async function replayHistory(history: unknown, workflowId: string, dataConverter: DataConverter): Promise<void> {
  await Worker.runReplayHistory(
    { workflowsPath: require.resolve('../workflows'), replayName: `replay-${workflowId}`, dataConverter },
    history,
    workflowId,
  );
}

/**
 * Every run of a workflow id, oldest first: the latest run (or `runId`) and, through each run's
 * `continuedExecutionRunId`, the runs it continued from, as a campaign that continued as new has.
 */
export async function downloadRuns(client: Client, workflowId: string, runId?: string): Promise<RecordedRun[]> {
  const runs: RecordedRun[] = [];
  let current = runId ?? (await client.workflow.getHandle(workflowId).describe()).runId;
  for (;;) {
    const history = await client.workflow.getHandle(workflowId, current).fetchHistory();
    runs.unshift({ workflowId, runId: current, history });
    const previous = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) return runs;
    current = previous;
  }
}

/** A downloaded run's history as the JSON the fixtures and the Temporal UI's download use. */
export const historyJson = (run: RecordedRun): string =>
  historyToJSON(run.history as Parameters<typeof historyToJSON>[0]);
