import type { DataSource } from 'typeorm';
import { createDataLifecycleRepository } from '../../entities/repositories/data-lifecycle.repository';
import type { RecordingStore } from '../../voice/recording-store';
import { eraseRuns } from './run-erasure';

export interface RetentionSetting {
  /** Runs older than this many days lose their recording, transcript and other personal data; null: kept. */
  retention_days: number | null;
}

export async function getRetention(dataSource: DataSource, organizationId: number): Promise<RetentionSetting> {
  return { retention_days: await createDataLifecycleRepository(dataSource).retentionDays(organizationId) };
}

export async function setRetention(
  dataSource: DataSource,
  organizationId: number,
  setting: RetentionSetting,
): Promise<RetentionSetting> {
  await createDataLifecycleRepository(dataSource).setRetentionDays(organizationId, setting.retention_days);
  return getRetention(dataSource, organizationId);
}

/**
 * Erases up to `limit` runs, across organizations, that are older than their organization's
 * retention. Rows are claimed with SKIP LOCKED so two sweeps never erase the same run, and each
 * batch is idempotent: after a crash the next batch finds what is left.
 */
export async function eraseExpiredRunsBatch(
  dataSource: DataSource,
  recordings: RecordingStore,
  limit: number,
): Promise<number> {
  return createDataLifecycleRepository(dataSource).transaction(async (lifecycle) => {
    const due = await lifecycle.claimExpiredRuns(limit);
    const byOrganization = new Map<number, number[]>();
    for (const run of due)
      byOrganization.set(run.organization_id, [...(byOrganization.get(run.organization_id) ?? []), run.id]);
    let erased = 0;
    for (const [organizationId, runIds] of byOrganization) {
      erased += (await eraseRuns(lifecycle, recordings, organizationId, runIds)).runs;
    }
    return erased;
  });
}
