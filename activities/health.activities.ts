import type { DataSource } from 'typeorm';
import type { HealthCheckResult } from '../workflows/definitions';

export interface HealthActivityDeps {
  dataSource: DataSource;
  /** How this worker names itself to Temporal (`pid@host`). */
  workerIdentity: string;
}

export function createHealthActivities({ dataSource, workerIdentity }: HealthActivityDeps) {
  return {
    async checkDatabase(): Promise<HealthCheckResult> {
      const [row] = await dataSource.query<{ now: Date; name: string }[]>(
        'SELECT now() AS now, current_database() AS name',
      );
      if (!row) throw new Error('PostgreSQL returned no row');
      return {
        workerIdentity,
        databaseTime: row.now.toISOString(),
        databaseName: row.name,
      };
    },
  };
}
