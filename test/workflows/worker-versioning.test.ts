import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { DefaultLogger, Worker } from '@temporalio/worker';
import { ProviderRefusedError } from '../../domain/calls/call-errors';
import { freePort } from '../../scripts/free-port';
import {
  currentBuildId,
  promoteVersion,
  workerDeploymentOptions,
  type DeploymentVersion,
} from '../../workers/versioning';
import { bundleWorkflows, type WorkflowCode } from '../../workers/workflow-code';
import { callWorkflow } from '../../workflows/call.workflow';
import { campaignWorkflow } from '../../workflows/campaign.workflow';
import { ManagedProcess } from '../helpers/managed-process';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { testDataConverter, testWorkflowBundle, uniqueTaskQueue } from '../helpers/temporal';
import { testEnv } from '../helpers/test-env';
import { waitFor } from '../helpers/wait-for';

/**
 * Worker Versioning as a deploy meets it (docs/workflow-versioning.md): builds named by their
 * workflow code, workers (`workers/main.ts`) that never promote their own build, and calls that
 * finish on the build they started on after another is promoted.
 */

const services = useTestServices();
const root = join(__dirname, '..', '..');
const fixtures = join(__dirname, '..', 'fixtures', 'build-id');
const quiet = new DefaultLogger('WARN');

/** The versioning behaviour and build the workflow's first task recorded. */
const versioningOf = (handle: WorkflowHandle) =>
  waitFor(`${handle.workflowId}'s first workflow task`, async () => {
    const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
    return info?.behavior ? { behavior: info.behavior, buildId: info.deploymentVersion?.buildId } : null;
  });

describe('build ids', () => {
  let first: WorkflowCode;
  let second: WorkflowCode;
  beforeAll(async () => {
    first = await bundleWorkflows({ workflowsPath: join(fixtures, 'first.workflows.ts'), logger: quiet });
    second = await bundleWorkflows({ workflowsPath: join(fixtures, 'second.workflows.ts'), logger: quiet });
  }, 120_000);

  it('tells two builds of one package version apart by their workflow code, and gives one code one id', async () => {
    expect(first.buildId).toMatch(/^\d+\.\d+\.\d+\+[0-9a-f]{12}$/);
    expect(second.buildId.split('+')[0]).toBe(first.buildId.split('+')[0]);
    expect(second.buildId).not.toBe(first.buildId);
    const again = await bundleWorkflows({ workflowsPath: join(fixtures, 'first.workflows.ts'), logger: quiet });
    expect(again.buildId).toBe(first.buildId);
  }, 120_000);

  it('leaves promotion to the operator: a restarted worker of the old build does not become current', async () => {
    const client = services.temporal.client;
    const deploymentName = `test-${randomUUID()}`;
    const taskQueue = uniqueTaskQueue('versioning-restart');
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-builds-'));
    const workers: ManagedProcess[] = [];
    /** `workers/main.ts` on one build's bundle, as a deploy starts it. */
    const startWorker = async (build: WorkflowCode, name: string) => {
      const bundlePath = join(dir, `${name}.js`);
      writeFileSync(bundlePath, build.code);
      const worker = new ManagedProcess({
        name,
        command: process.execPath,
        args: ['--import', 'tsx', join(root, 'workers', 'main.ts')],
        cwd: root,
        env: {
          ...process.env,
          NODE_ENV: 'test',
          LOG_LEVEL: 'warn',
          DATABASE_URL: services.db.url,
          TEMPORAL_ADDRESS: testEnv('temporalAddress'),
          TEMPORAL_TASK_QUEUE: taskQueue,
          TEMPORAL_DEPLOYMENT_NAME: deploymentName,
          SECRETS_KEY: TEST_SECRETS_KEY,
          WORKER_METRICS_PORT: String(await freePort()),
          WORKER_NICE: '0',
          WORKFLOW_BUNDLE_PATH: bundlePath,
          DATA_DIR: dir,
        },
        ready: () => servesPinned(client, taskQueue, { deploymentName, buildId: build.buildId }),
      });
      workers.push(worker);
      await worker.start();
      return worker;
    };
    try {
      const oldWorker = await startWorker(first, 'old');
      expect(await currentBuildId(client, deploymentName)).toBeNull();
      await promoteVersion(client, { deploymentName, buildId: first.buildId });

      await startWorker(second, 'new');
      expect(await currentBuildId(client, deploymentName)).toBe(first.buildId);
      const { previousBuildId } = await promoteVersion(client, { deploymentName, buildId: second.buildId });
      expect(previousBuildId).toBe(first.buildId);

      await oldWorker.kill();
      await oldWorker.start();
      expect(await currentBuildId(client, deploymentName)).toBe(second.buildId);
      // New executions go to the current build.
      const result = await client.workflow.execute('buildWorkflow', {
        taskQueue,
        workflowId: `${taskQueue}-after-restart`,
      });
      expect(result).toBe('second build');
      workers.forEach((worker) => worker.assertAlive());
    } finally {
      for (const worker of workers) await worker.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});

/**
 * Resolves once a worker of `version` runs a workflow pinned to it: it polls and works, whichever
 * build is current. A start is refused until the server knows the version, and retried.
 */
async function servesPinned(client: Client, taskQueue: string, version: DeploymentVersion): Promise<void> {
  const workflowId = `${taskQueue}-${version.buildId}-${randomUUID()}`;
  const started = await waitFor(
    `a worker of ${version.buildId} to poll`,
    () =>
      client.workflow
        .start('buildWorkflow', { taskQueue, workflowId, versioningOverride: { pinnedTo: version } })
        .catch(() => null),
    { timeoutMs: 120_000, intervalMs: 250 },
  );
  await started.result();
}

describe('pinned calls across a promotion', () => {
  it('finishes a call on the build it started on while new calls start on the promoted build', async () => {
    const client = services.temporal.client;
    const taskQueue = uniqueTaskQueue('worker-versioning');
    const deploymentName = `test-${randomUUID()}`;
    const old = { deploymentName, buildId: 'old-build' };
    const promoted = { deploymentName, buildId: 'new-build' };
    const concludedOn: Record<string, string> = {};
    let releaseDial: () => void = () => undefined;
    const dialReleased = new Promise<void>((resolve) => (releaseDial = resolve));
    /** A build whose calls are refused by the provider, once `dialReleased` for the old build. */
    const workerOf = (version: DeploymentVersion, hold: Promise<void>) =>
      Worker.create({
        connection: services.temporal.nativeConnection,
        taskQueue,
        workflowBundle: testWorkflowBundle(),
        dataConverter: testDataConverter,
        workerDeploymentOptions: workerDeploymentOptions(version),
        activities: {
          checkDialRules: () => Promise.resolve({ dial: true }),
          preCallFetch: () => Promise.resolve({ fetched: false }),
          placeCall: () => hold.then(() => Promise.reject(new ProviderRefusedError('test'))),
          concludeCall: (input: { runId: number }) => {
            concludedOn[String(input.runId)] = version.buildId;
            return Promise.resolve({ postCallWebhooks: [], disposition: 'failed' });
          },
        },
      });
    const oldWorker = await workerOf(old, dialReleased);
    const newWorker = await workerOf(promoted, Promise.resolve());
    const start = (runId: number) =>
      client.workflow.start(callWorkflow, {
        taskQueue,
        workflowId: `${taskQueue}-call-${runId}`,
        args: [{ runId, attempt: 1, maxDurationSeconds: 1, conversation: 'simulated' }],
      });
    const { VERSIONING_BEHAVIOR_PINNED, VERSIONING_BEHAVIOR_AUTO_UPGRADE } = proto.api.enums.v1.VersioningBehavior;
    await oldWorker.runUntil(async () => {
      await promoteVersion(client, old);
      const ringing = await start(1);
      const campaign = await client.workflow.start(campaignWorkflow, {
        taskQueue,
        workflowId: `${taskQueue}-campaign`,
        args: [{ campaignId: 1 }],
      });
      expect(await versioningOf(ringing)).toEqual({ behavior: VERSIONING_BEHAVIOR_PINNED, buildId: old.buildId });
      expect(await versioningOf(campaign)).toEqual({
        behavior: VERSIONING_BEHAVIOR_AUTO_UPGRADE,
        buildId: old.buildId,
      });
      await newWorker.runUntil(async () => {
        await promoteVersion(client, promoted);
        const later = await start(2);
        expect(await versioningOf(later)).toEqual({ behavior: VERSIONING_BEHAVIOR_PINNED, buildId: promoted.buildId });
        releaseDial();
        expect(await ringing.result()).toMatchObject({ callStatus: 'failed' });
        expect(await later.result()).toMatchObject({ callStatus: 'failed' });
      });
      await campaign.terminate('test over');
    });
    expect(concludedOn).toEqual({ '1': old.buildId, '2': promoted.buildId });
  }, 120_000);
});
