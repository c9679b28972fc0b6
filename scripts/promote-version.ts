import { parseArgs } from 'node:util';
import { DefaultLogger } from '@temporalio/worker';
import { config, ConfigError } from '../platform/config';
import { connectTemporalClient, NO_PAYLOADS } from '../platform/temporal';
import { promoteVersion } from '../workers/versioning';
import { loadWorkflowCode } from '../workers/workflow-code';

/**
 * `npm run versioning:promote [-- --build-id <id>] [--wait-seconds <s>]` (in the image:
 * `node dist/scripts/promote-version.js`): makes a build the current version of the worker
 * deployment TEMPORAL_DEPLOYMENT_NAME, once its workers poll. New calls start on it and campaigns
 * move to it; calls pinned to the previous build finish there. Without `--build-id`, the build this
 * checkout's workers run: the prebuilt bundle in production, else `workflows/` bundled now.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'build-id': { type: 'string' }, 'wait-seconds': { type: 'string', default: '60' } },
  });
  const waitSeconds = Number(values['wait-seconds']);
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0) throw new Error('--wait-seconds must be a number ≥ 0');
  const cfg = config();
  const buildId = values['build-id'] ?? (await loadWorkflowCode(cfg, new DefaultLogger('WARN'))).buildId;
  const deploymentName = cfg.TEMPORAL_DEPLOYMENT_NAME;
  const client = await connectTemporalClient(cfg.TEMPORAL_ADDRESS, cfg.TEMPORAL_NAMESPACE, NO_PAYLOADS);
  try {
    console.log(`Promoting build ${buildId} of ${deploymentName} once its workers poll (up to ${waitSeconds} s)...`);
    const { previousBuildId } = await promoteVersion(
      client,
      { deploymentName, buildId },
      { timeoutMs: waitSeconds * 1000 },
    );
    if (previousBuildId === buildId) console.log(`Build ${buildId} already was the current version.`);
    else console.log(`Build ${buildId} is the current version (was ${previousBuildId ?? 'none'}).`);
  } finally {
    await client.connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError || error instanceof Error ? error.message : error);
  process.exit(1);
});
