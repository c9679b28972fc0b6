import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { TestServices } from './services';
import { testDataConverter, testWorkflowBundle } from './temporal';

/** A worker that processes knowledge-base documents (and health checks) on `taskQueue`. */
export function knowledgeBaseWorker(services: TestServices, taskQueue: string): Promise<Worker> {
  return Worker.create({
    connection: services.temporal.nativeConnection,
    taskQueue,
    workflowBundle: testWorkflowBundle(),
    dataConverter: testDataConverter,
    activities: createActivities({ dataSource: services.db.dataSource, workerIdentity: `kb-${taskQueue}` }),
  });
}
