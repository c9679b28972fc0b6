import type { Client } from '@temporalio/client';

/** Reading workflow histories for the benchmarks' reports. */

/** Children whose history length is read, evenly spread over the run. */
export const CHILD_SAMPLE = 200;

type HistoryEvents = NonNullable<
  Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>['events']
>;

/** Event counts by kind (`childWorkflowExecutionCompleted` …), so a report can say where a history's length goes. */
export function countKinds(events: HistoryEvents, into = new Map<string, number>()): Map<string, number> {
  for (const event of events) {
    const kind = (event.attributes ?? 'unknown').replace(/EventAttributes$/, '');
    into.set(kind, (into.get(kind) ?? 0) + 1);
  }
  return into;
}

export const formatKinds = (kinds: Map<string, number>, per: number) =>
  [...kinds]
    .sort((a, b) => b[1] - a[1])
    .map(([kind, count]) => `${kind} ${(count / per).toFixed(2)}`)
    .join(', ');

/** Every run of a continue-as-new chain, newest first (each run's first event names the one before). */
export async function chainHistory(client: Client, workflowId: string) {
  let runId: string | undefined;
  let runs = 0;
  let events = 0;
  const kinds = new Map<string, number>();
  /** Why workflow tasks failed, with the failure's first line: the report says what they were. */
  const taskFailures = new Map<string, number>();
  do {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    runs += 1;
    events += history.events?.length ?? 0;
    countKinds(history.events ?? [], kinds);
    for (const event of history.events ?? []) {
      const failed = event.workflowTaskFailedEventAttributes;
      if (!failed) continue;
      const reason = `${String(failed.cause)}: ${(failed.failure?.message ?? '').split('\n')[0]?.slice(0, 120) ?? ''}`;
      taskFailures.set(reason, (taskFailures.get(reason) ?? 0) + 1);
    }
    const previous = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    runId = previous ? previous : undefined;
  } while (runId);
  return { runs, events, kinds, taskFailures };
}

/** One workflow's events by kind. */
export async function historyKinds(client: Client, workflowId: string): Promise<Map<string, number>> {
  return countKinds((await client.workflow.getHandle(workflowId).fetchHistory()).events ?? []);
}

/** Mean history length over up to CHILD_SAMPLE of `ids`, evenly spread. */
export async function meanChildHistory(client: Client, ids: string[]): Promise<number> {
  const step = Math.max(1, ids.length / CHILD_SAMPLE);
  const sample = Array.from({ length: Math.min(CHILD_SAMPLE, ids.length) }, (_, i) => ids[Math.floor(i * step)] ?? '');
  let total = 0;
  for (let i = 0; i < sample.length; i += 10) {
    const lengths = await Promise.all(
      sample.slice(i, i + 10).map(async (id) => (await client.workflow.getHandle(id).describe()).historyLength),
    );
    total += lengths.reduce((sum, length) => sum + length, 0);
  }
  return total / sample.length;
}
