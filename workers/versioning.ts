import { execFileSync } from 'node:child_process';
import type { WorkerDeploymentOptions } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { version as packageVersion } from '../platform/version';

/**
 * Temporal Worker Versioning (docs/workflow-versioning.md): every worker states the deployment
 * version it runs, `<deployment>:<build id>`. Calls are pinned to the version they started on;
 * campaigns move to the current version at their next workflow task (see the workflow files).
 */

/** The build id: the package version and the commit it was built from, or the version alone without git. */
export function buildId(version: string = packageVersion, commit: string | null = gitCommit()): string {
  return commit ? `${version}+${commit.slice(0, 12)}` : version;
}

function gitCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: __dirname, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return null;
  }
}

/** The worker's deployment options; workflows that set no behaviour of their own are pinned. */
export function workerDeploymentOptions(deploymentName: string, build: string = buildId()): WorkerDeploymentOptions {
  return {
    version: { deploymentName, buildId: build },
    useWorkerVersioning: true,
    defaultVersioningBehavior: 'PINNED',
  };
}

/**
 * Makes this worker's version the deployment's current one, so that new executions, and campaigns
 * at their next task, run on it. The server knows a version only once a worker of it has polled,
 * so this is tried until it is accepted.
 */
export async function setCurrentVersion(
  client: Client,
  deployment: { deploymentName: string; buildId: string },
  options: { attempts?: number; intervalMs?: number } = {},
): Promise<void> {
  const { attempts = 60, intervalMs = 500 } = options;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await client.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: client.options.namespace,
        deploymentName: deployment.deploymentName,
        buildId: deployment.buildId,
        identity: client.options.identity,
      });
      return;
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
