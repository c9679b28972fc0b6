import { proxyActivities, sleep } from '@temporalio/workflow';
import type { createDataRetentionActivities } from '../activities/data-retention.activities';
import { ACTIVITY_POLICIES } from './activity-policies';

const { eraseExpiredRuns } = proxyActivities<ReturnType<typeof createDataRetentionActivities>>(
  ACTIVITY_POLICIES.retentionBatch,
);

export interface DataRetentionInput {
  /** Runs erased per activity: one transaction, its recordings removed first. */
  batchSize: number;
  /** Batches per sweep, so one sweep's history stays small; the next sweep continues. */
  maxBatches: number;
  /** The pause between batches, which leaves the database to calls. */
  pause: string;
}

export const DATA_RETENTION_DEFAULTS: DataRetentionInput = { batchSize: 200, maxBatches: 50, pause: '1 second' };

/**
 * One retention sweep, started by the `data-retention` Schedule: erases runs past their
 * organization's retention in bounded batches until none is left or the sweep's batches are used.
 * Each batch is idempotent, so a retried activity or a crashed worker only repeats work.
 */
export async function dataRetentionWorkflow(input: Partial<DataRetentionInput> = {}): Promise<number> {
  const { batchSize, maxBatches, pause } = { ...DATA_RETENTION_DEFAULTS, ...input };
  let erased = 0;
  for (let batch = 0; batch < maxBatches; batch += 1) {
    const done = await eraseExpiredRuns({ limit: batchSize });
    erased += done;
    if (done < batchSize) break;
    await sleep(pause);
  }
  return erased;
}
