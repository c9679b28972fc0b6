import type { DataSource } from 'typeorm';
import { createDatabaseRepository } from '../entities/repositories/database.repository';
import type { HealthCheckResult } from '../workflows/definitions';

export interface HealthActivityDeps {
  dataSource: DataSource;
  /** How this worker names itself to Temporal (`pid@host`). */
  workerIdentity: string;
}

export function createHealthActivities({ dataSource, workerIdentity }: HealthActivityDeps) {
  const database = createDatabaseRepository(dataSource);
  return {
    async checkDatabase(): Promise<HealthCheckResult> {
      const row = await database.clock();
      if (!row) throw new Error('PostgreSQL returned no row');
      return {
        workerIdentity,
        databaseTime: row.now.toISOString(),
        databaseName: row.name,
      };
    },
  };
}
