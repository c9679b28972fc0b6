import type { DataSource } from 'typeorm';

/** Resolves once PostgreSQL answered a trivial statement: what readiness asks of the database. */
export async function pingDatabase(dataSource: DataSource): Promise<void> {
  await dataSource.query('SELECT 1');
}
