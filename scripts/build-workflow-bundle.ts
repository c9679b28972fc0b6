import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { bundleWorkflows, DEFAULT_BUNDLE_PATH } from '../workers/workflow-code';

/**
 * Writes the workflow bundle workers load (same @temporalio/worker version as theirs) and, beside
 * it, `build-id`: the id its workers run as, fixed here by the bundle's content
 * (docs/workflow-versioning.md). `--out <file>` writes elsewhere than dist/workflow-bundle.js.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string', default: DEFAULT_BUNDLE_PATH } } });
  const { code, buildId } = await bundleWorkflows();
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, code);
  writeFileSync(join(dirname(values.out), 'build-id'), `${buildId}\n`);
  console.log(`Wrote ${values.out} (${Math.round(code.length / 1024)} KiB), build id ${buildId}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
