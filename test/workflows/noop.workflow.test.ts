import { WorkflowFailedError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import {
  connectTestTemporal,
  testDataConverter,
  testWorkflowBundle,
  uniqueTaskQueue,
  type TestTemporal,
} from '../helpers/temporal';
import { noopParentWorkflow, noopWorkflow } from '../../bench/workflows';

let temporal: TestTemporal;
const taskQueue = uniqueTaskQueue('noop');

beforeAll(async () => {
  temporal = await connectTestTemporal();
});

afterAll(async () => {
  await temporal.close();
});

const createWorker = () =>
  Worker.create({
    connection: temporal.nativeConnection,
    taskQueue,
    workflowBundle: testWorkflowBundle(),
    dataConverter: testDataConverter,
  });

describe('no-op workflows (benchmark baselines)', () => {
  it('runs noopWorkflow to completion and a parent through a sliding window of no-op children', async () => {
    const worker = await createWorker();
    const parentId = `${taskQueue}-parent`;
    const { single, children, childResults } = await worker.runUntil(async () => {
      const single = await temporal.client.workflow.execute(noopWorkflow, {
        taskQueue,
        workflowId: `${taskQueue}-one`,
      });
      const children = await temporal.client.workflow.execute(noopParentWorkflow, {
        taskQueue,
        workflowId: parentId,
        args: [5, 2],
      });
      const childResults = await Promise.all(
        [0, 1, 2, 3, 4].map((index) =>
          temporal.client.workflow
            .getHandle(`${parentId}-noop-${index}`)
            .describe()
            .then((d) => d.status.name),
        ),
      );
      return { single, children, childResults };
    });
    expect(single).toBeUndefined();
    expect(children).toBe(5);
    expect(childResults).toEqual(Array(5).fill('COMPLETED'));
  });

  it('refuses a window of no width', async () => {
    const worker = await createWorker();
    const failure = await worker.runUntil(
      temporal.client.workflow
        .execute(noopParentWorkflow, { taskQueue, workflowId: `${taskQueue}-bad`, args: [3, 0] })
        .catch((error: unknown) => error),
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause?.message).toMatch(/concurrency an integer ≥ 1/);
  });
});
