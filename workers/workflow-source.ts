import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../platform/config';

/** Where `npm run build` writes the prebuilt bundle (relative to the repo root). */
export const DEFAULT_BUNDLE_PATH = join('dist', 'workflow-bundle.js');

/**
 * Production workers load the prebuilt bundle, so webpack never runs there and every worker runs
 * the same code; development bundles `workflows/` at startup.
 */
export function workflowSource(
  cfg: Pick<Config, 'NODE_ENV' | 'WORKFLOW_BUNDLE_PATH'>,
): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  const bundlePath = cfg.WORKFLOW_BUNDLE_PATH ?? (cfg.NODE_ENV === 'production' ? DEFAULT_BUNDLE_PATH : undefined);
  if (bundlePath) {
    if (!existsSync(bundlePath)) {
      throw new Error(`Workflow bundle ${bundlePath} is missing: run \`npm run build\` first.`);
    }
    return { workflowBundle: { codePath: bundlePath } };
  }
  return { workflowsPath: require.resolve(join(__dirname, '..', 'workflows')) };
}
