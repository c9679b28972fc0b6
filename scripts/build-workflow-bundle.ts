import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { FAILURE_CONVERTER_PATH } from '../platform/payload-codec';
import { WORKFLOW_TRACING_MODULE } from '../platform/tracing/worker-tracing';
import { DEFAULT_BUNDLE_PATH } from '../workers/workflow-source';

/** Writes the workflow bundle production workers load (same @temporalio/worker version as theirs). */
async function main(): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve(join(__dirname, '..', 'workflows')),
    workflowInterceptorModules: [WORKFLOW_TRACING_MODULE],
    failureConverterPath: FAILURE_CONVERTER_PATH,
  });
  mkdirSync(dirname(DEFAULT_BUNDLE_PATH), { recursive: true });
  writeFileSync(DEFAULT_BUNDLE_PATH, code);
  console.log(`Wrote ${DEFAULT_BUNDLE_PATH} (${Math.round(code.length / 1024)} KiB)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
