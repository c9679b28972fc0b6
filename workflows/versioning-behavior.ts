import type { VersioningBehavior, WorkflowDefinitionOptions } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';

/**
 * A workflow's versioning behaviour (docs/workflow-versioning.md), given to `setWorkflowOptions`.
 * Stated only on a worker of a deployment: the server refuses a workflow task that states one from
 * an unversioned worker (TEMPORAL_WORKER_VERSIONING=false, the tests' workers), whose version has
 * a build id but no deployment name.
 */
export const versioningBehavior = (behavior: VersioningBehavior) => (): WorkflowDefinitionOptions =>
  workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: behavior } : {};
