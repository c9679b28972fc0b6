import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { ProviderRefusedError } from '../../activities/call-errors';
import { buildId, setCurrentVersion, workerDeploymentOptions } from '../../workers/versioning';
import { callWorkflow } from '../../workflows/call.workflow';
import { campaignWorkflow } from '../../workflows/campaign.workflow';
import { noopWorkflow } from '../../workflows/noop.workflow';
import {
  connectTestTemporal,
  testDataConverter,
  testWorkflowBundle,
  uniqueTaskQueue,
  type TestTemporal,
} from '../helpers/temporal';
import { waitFor } from '../helpers/wait-for';

/** The worker as `workers/main.ts` runs it with TEMPORAL_WORKER_VERSIONING, on the tests' dev server. */

let temporal: TestTemporal;
beforeAll(async () => {
  temporal = await connectTestTemporal();
});
afterAll(() => temporal.close());

/** The versioning behaviour the workflow's first task recorded. */
const behaviourOf = (handle: WorkflowHandle) =>
  waitFor(`${handle.workflowId}'s first workflow task`, async () => {
    const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
    return info?.behavior ? { behavior: info.behavior, buildId: info.deploymentVersion?.buildId } : null;
  });

describe('worker versioning', () => {
  it('names the build by the package version and the commit, or the version alone', () => {
    expect(buildId('1.2.3', '0123456789abcdef0123')).toBe('1.2.3+0123456789ab');
    expect(buildId('1.2.3', null)).toBe('1.2.3');
  });

  it('gets tasks once its version is current: calls are pinned to it, campaigns upgrade', async () => {
    const taskQueue = uniqueTaskQueue('worker-versioning');
    const deployment = workerDeploymentOptions(`test-${randomUUID()}`, buildId('0.0.1', 'feedc0ffee'));
    const worker = await Worker.create({
      connection: temporal.nativeConnection,
      taskQueue,
      workflowBundle: testWorkflowBundle(),
      dataConverter: testDataConverter,
      workerDeploymentOptions: deployment,
      // A call refused at once ends in its first workflow task; a campaign gets no further than its first.
      activities: {
        checkDialRules: () => Promise.resolve({ dial: true }),
        placeCall: () => Promise.reject(new ProviderRefusedError('test')),
        concludeCall: () => Promise.resolve({ postCallWebhooks: [], disposition: 'failed' }),
      },
    });
    await worker.runUntil(async () => {
      await setCurrentVersion(temporal.client, deployment.version);
      const workflowId = (name: string) => `${taskQueue}-${name}`;
      await temporal.client.workflow.execute(noopWorkflow, { taskQueue, workflowId: workflowId('noop') });
      // The first workflow task records the behaviour.
      const call = await temporal.client.workflow.start(callWorkflow, {
        taskQueue,
        workflowId: workflowId('call'),
        args: [{ runId: 1, attempt: 1, maxDurationSeconds: 1, conversation: 'simulated' }],
      });
      const campaign = await temporal.client.workflow.start(campaignWorkflow, {
        taskQueue,
        workflowId: workflowId('campaign'),
        args: [{ campaignId: 1 }],
      });
      const build = { buildId: deployment.version.buildId };
      const { VERSIONING_BEHAVIOR_PINNED, VERSIONING_BEHAVIOR_AUTO_UPGRADE } = proto.api.enums.v1.VersioningBehavior;
      expect(await behaviourOf(call)).toEqual({ behavior: VERSIONING_BEHAVIOR_PINNED, ...build });
      expect(await behaviourOf(campaign)).toEqual({ behavior: VERSIONING_BEHAVIOR_AUTO_UPGRADE, ...build });
      expect(await call.result()).toMatchObject({ callStatus: 'failed' });
      await campaign.terminate('test over');
    });
  });
});
