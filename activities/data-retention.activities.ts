import type { DataSource } from 'typeorm';
import { eraseExpiredRunsBatch } from '../domain/lifecycle/retention';
import type { RecordingStore } from '../voice/recording-store';

export interface DataRetentionActivityDeps {
  dataSource: DataSource;
  recordings: RecordingStore;
}

export function createDataRetentionActivities({ dataSource, recordings }: DataRetentionActivityDeps) {
  return {
    /** Erases up to `limit` runs past their organization's retention; answers how many it erased. */
    async eraseExpiredRuns({ limit }: { limit: number }): Promise<number> {
      return eraseExpiredRunsBatch(dataSource, recordings, limit);
    },
  };
}
