import type { DataSource } from 'typeorm';
import type { RecordingStore } from '../../voice/recording-store';
import { eraseRuns, RUN_IN_PROGRESS } from './run-erasure';

export interface RetentionSetting {
  /** Runs older than this many days lose their recording, transcript and other personal data; null: kept. */
  retention_days: number | null;
}

export async function getRetention(dataSource: DataSource, organizationId: number): Promise<RetentionSetting> {
  const [row] = await dataSource.query<{ retention_days: number | null }[]>(
    `SELECT retention_days FROM organizations WHERE id = $1`,
    [organizationId],
  );
  return { retention_days: row?.retention_days ?? null };
}

export async function setRetention(
  dataSource: DataSource,
  organizationId: number,
  setting: RetentionSetting,
): Promise<RetentionSetting> {
  await dataSource.query(`UPDATE organizations SET retention_days = $2, updated_at = now() WHERE id = $1`, [
    organizationId,
    setting.retention_days,
  ]);
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
  return dataSource.transaction(async (manager) => {
    const due = await manager.query<{ id: number; organization_id: number }[]>(
      `SELECT r.id, r.organization_id FROM organizations o
         JOIN runs r ON r.organization_id = o.id AND r.erased_at IS NULL
                    AND r.created_at < now() - make_interval(days => o.retention_days)
        WHERE o.retention_days IS NOT NULL AND NOT r.${RUN_IN_PROGRESS}
        ORDER BY r.created_at LIMIT $1 FOR UPDATE OF r SKIP LOCKED`,
      [limit],
    );
    const byOrganization = new Map<number, number[]>();
    for (const run of due)
      byOrganization.set(run.organization_id, [...(byOrganization.get(run.organization_id) ?? []), run.id]);
    let erased = 0;
    for (const [organizationId, runIds] of byOrganization) {
      erased += (await eraseRuns(manager, recordings, organizationId, runIds)).runs;
    }
    return erased;
  });
}
