import { ApplicationFailure, executeChild, sleep, workflowInfo } from '@temporalio/workflow';

/**
 * Does nothing and returns at once: the cost of a workflow itself (start, one workflow task,
 * completion), the baseline the call and campaign benchmarks compare against. With `waitSeconds`,
 * it first waits that long on one timer: the baseline of a call in flight (bench:inflight).
 */
export async function noopWorkflow(waitSeconds = 0): Promise<void> {
  if (waitSeconds > 0) await sleep(waitSeconds * 1000);
  // A workflow function must be async; without a wait there is nothing to await.
  else await Promise.resolve();
}

/**
 * Runs `count` no-op children, at most `concurrency` at a time (a bare sliding window): the
 * baseline of a campaign's child-call fan-out without any call in it. Each child waits
 * `childWaitSeconds` first. Returns how many ran.
 */
export async function noopParentWorkflow(count: number, concurrency: number, childWaitSeconds = 0): Promise<number> {
  if (!Number.isInteger(count) || count < 0 || !Number.isInteger(concurrency) || concurrency < 1) {
    throw ApplicationFailure.nonRetryable(
      `count must be an integer ≥ 0 and concurrency an integer ≥ 1 (got ${count}, ${concurrency})`,
      'InvalidArguments',
    );
  }
  const args: [number] | [] = childWaitSeconds > 0 ? [childWaitSeconds] : [];
  const parentId = workflowInfo().workflowId;
  let next = 0;
  let finished = 0;
  // Each lane starts the next child as soon as its previous one has finished.
  const lane = async (): Promise<void> => {
    while (next < count) {
      const index = next;
      next += 1;
      await executeChild(noopWorkflow, { workflowId: `${parentId}-noop-${index}`, args });
      finished += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return finished;
}
