import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { recordBundleInputs, writeBundleInputs } from '../workers/workflow-bundle-inputs';
import { bundleWorkflows, DEFAULT_BUNDLE_PATH } from '../workers/workflow-code';

/**
 * Writes the workflow bundle workers load (same @temporalio/worker version as theirs) and, beside
 * it, `build-id`: the id its workers run as, fixed here by the bundle's content
 * (docs/workflow-versioning.md). `--out <file>` writes elsewhere than dist/workflow-bundle.js;
 * `--record-inputs` also writes what webpack read (`<file>.inputs.json`), so that a later start can
 * tell the bundle is still current.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { out: { type: 'string', default: DEFAULT_BUNDLE_PATH }, 'record-inputs': { type: 'boolean' } },
  });
  const recorder = values['record-inputs'] ? recordBundleInputs() : undefined;
  const { code, buildId } = await bundleWorkflows(recorder ? { webpackConfigHook: recorder.hook } : {});
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, code);
  writeFileSync(join(dirname(values.out), 'build-id'), `${buildId}\n`);
  if (recorder) writeBundleInputs(values.out, recorder.inputs(code));
  console.log(`Wrote ${values.out} (${Math.round(code.length / 1024)} KiB), build id ${buildId}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
