import { ApplicationFailure, executeChild, workflowInfo } from '@temporalio/workflow';

/**
 * Does nothing and returns at once: the cost of a workflow itself (start, one workflow task,
 * completion), the baseline the call and campaign benchmarks compare against.
 */
export async function noopWorkflow(): Promise<void> {
  // A workflow function must be async; there is nothing to await.
  await Promise.resolve();
}

/**
 * Runs `count` no-op children, at most `concurrency` at a time (a bare sliding window): the
 * baseline of a campaign's child-call fan-out without any call in it. Returns how many ran.
 */
export async function noopParentWorkflow(count: number, concurrency: number): Promise<number> {
  if (!Number.isInteger(count) || count < 0 || !Number.isInteger(concurrency) || concurrency < 1) {
    throw ApplicationFailure.nonRetryable(
      `count must be an integer ≥ 0 and concurrency an integer ≥ 1 (got ${count}, ${concurrency})`,
      'InvalidArguments',
    );
  }
  const parentId = workflowInfo().workflowId;
  let next = 0;
  let finished = 0;
  // Each lane starts the next child as soon as its previous one has finished.
  const lane = async (): Promise<void> => {
    while (next < count) {
      const index = next;
      next += 1;
      await executeChild(noopWorkflow, { workflowId: `${parentId}-noop-${index}` });
      finished += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return finished;
}
