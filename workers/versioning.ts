import type { Client } from '@temporalio/client';
import type { WorkerDeploymentOptions } from '@temporalio/worker';

/**
 * Temporal Worker Versioning (docs/workflow-versioning.md): every worker states the deployment
 * version it runs, `<deployment>:<build id>`, the build id being its workflow bundle's
 * (workers/workflow-code.ts). A worker never makes its version current: an operator promotes a
 * build (`npm run versioning:promote`), so an old worker that restarts takes no new work.
 */

export interface DeploymentVersion {
  deploymentName: string;
  buildId: string;
}

/** The worker's deployment options; workflows that set no behaviour of their own are pinned. */
export function workerDeploymentOptions(version: DeploymentVersion): WorkerDeploymentOptions {
  return { version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' };
}

/** gRPC status of a deployment the server does not know yet. */
const NOT_FOUND = 5;

/** The deployment's current build id, or null (no such deployment yet, or none current). */
export async function currentBuildId(client: Client, deploymentName: string): Promise<string | null> {
  try {
    const { workerDeploymentInfo } = await client.workflowService.describeWorkerDeployment({
      namespace: client.options.namespace,
      deploymentName,
    });
    return workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId || null;
  } catch (error) {
    if ((error as { code?: number }).code === NOT_FOUND) return null;
    throw error;
  }
}

/**
 * Makes `version` the deployment's current one: new executions, and campaigns at their next task,
 * run on it. The server knows a version once one of its workers has polled, so this waits up to
 * `timeoutMs` for that. Returns the build id that was current before (null if none; itself if it
 * already was).
 */
export async function promoteVersion(
  client: Client,
  version: DeploymentVersion,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<{ previousBuildId: string | null }> {
  const { timeoutMs = 60_000, intervalMs = 500 } = options;
  if ((await currentBuildId(client, version.deploymentName)) === version.buildId) {
    return { previousBuildId: version.buildId };
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: client.options.namespace,
        deploymentName: version.deploymentName,
        buildId: version.buildId,
        identity: client.options.identity,
      });
      return { previousBuildId: response.previousDeploymentVersion?.buildId || null };
    } catch (error) {
      if (Date.now() >= deadline) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(
          `Build ${version.buildId} of worker deployment ${version.deploymentName} could not be made current ` +
            `within ${Math.round(timeoutMs / 1000)} s (are its workers running?): ${reason}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
