import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import type { SearchDeps } from '../../domain/knowledge-base/search';
import { createToolRunnerDeps } from '../../domain/tools/tool-runner-deps';
import { Secrets } from '../../telephony/secrets';
import type { TestServices } from './services';
import { TEST_SECRETS_KEY } from './telephony';
import { testDataConverter, testWorkflowBundle } from './temporal';

/** How the tests' workers and searches reach embeddings endpoints: local servers allowed, credentials under the test key. */
export function knowledgeBaseSearchDeps(services: TestServices): SearchDeps {
  const { dataSource } = services.db;
  return {
    db: dataSource,
    outbound: createToolRunnerDeps({
      dataSource,
      secrets: new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex')),
      config: { ALLOW_PRIVATE_WEBHOOKS: true },
    }),
  };
}

/** A worker that processes knowledge-base documents (and health checks) on `taskQueue`. */
export function knowledgeBaseWorker(services: TestServices, taskQueue: string): Promise<Worker> {
  return Worker.create({
    connection: services.temporal.nativeConnection,
    taskQueue,
    workflowBundle: testWorkflowBundle(),
    dataConverter: testDataConverter,
    activities: createActivities({
      dataSource: services.db.dataSource,
      workerIdentity: `kb-${taskQueue}`,
      embeddings: knowledgeBaseSearchDeps(services).outbound,
    }),
  });
}
