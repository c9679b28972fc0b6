import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode, type BundleOptions, type Logger } from '@temporalio/worker';
import type { Config } from '../platform/config';
import { FAILURE_CONVERTER_PATH } from '../platform/payload-codec';
import { WORKFLOW_TRACING_MODULE } from '../platform/tracing/worker-tracing';
import { version as packageVersion } from '../platform/version';

/** Where `npm run build` writes the prebuilt bundle (relative to the repo root). */
export const DEFAULT_BUNDLE_PATH = join('dist', 'workflow-bundle.js');

/** The production workflows: the bundle's entry point. */
export const WORKFLOWS_PATH = join(__dirname, '..', 'workflows');

/** The workflow code a worker runs, and the build id it runs it as. */
export interface WorkflowCode {
  code: string;
  buildId: string;
}

/**
 * The build id of a workflow bundle: the package version and the first 12 hex digits of the
 * bundle's SHA-256. Two builds of one version with different workflow code (or dependencies) get
 * different ids, and the same code always the same id, wherever it was built: the bundle holds no
 * absolute paths and no time.
 */
export function buildIdOf(code: string, version: string = packageVersion): string {
  return `${version}+${createHash('sha256').update(code).digest('hex').slice(0, 12)}`;
}

/** Bundles the workflows with the tracing interceptors and the failure converter, as `npm run build` does for production. */
export async function bundleWorkflows(
  options: { workflowsPath?: string; logger?: Logger; webpackConfigHook?: BundleOptions['webpackConfigHook'] } = {},
): Promise<WorkflowCode> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve(options.workflowsPath ?? WORKFLOWS_PATH),
    workflowInterceptorModules: [WORKFLOW_TRACING_MODULE],
    // Failures' messages and stacks are encrypted like every payload (docs/SECURITY.md).
    failureConverterPath: FAILURE_CONVERTER_PATH,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.webpackConfigHook ? { webpackConfigHook: options.webpackConfigHook } : {}),
  });
  return { code, buildId: buildIdOf(code) };
}

/** A prebuilt bundle and its build id. */
export function readWorkflowBundle(path: string): WorkflowCode {
  if (!existsSync(path)) throw new Error(`Workflow bundle ${path} is missing: run \`npm run build\` first.`);
  const code = readFileSync(path, 'utf8');
  return { code, buildId: buildIdOf(code) };
}

/**
 * The workflow code this process runs: production workers load the prebuilt bundle, so webpack
 * never runs there and every worker of a build runs the same code; from source, the workflows are
 * bundled now, the way the build bundles them, so the build id is the one a build would get.
 */
export async function loadWorkflowCode(
  cfg: Pick<Config, 'NODE_ENV' | 'WORKFLOW_BUNDLE_PATH'>,
  logger?: Logger,
): Promise<WorkflowCode & { prebuilt: boolean }> {
  const bundlePath = cfg.WORKFLOW_BUNDLE_PATH ?? (cfg.NODE_ENV === 'production' ? DEFAULT_BUNDLE_PATH : undefined);
  if (bundlePath) return { ...readWorkflowBundle(bundlePath), prebuilt: true };
  return { ...(await bundleWorkflows({ logger })), prebuilt: false };
}
