import type { DataSource } from 'typeorm';
import { createDatabaseRepository } from '../../entities/repositories/database.repository';

/** Resolves once PostgreSQL answered a trivial statement: what readiness asks of the database. */
export function pingDatabase(dataSource: DataSource): Promise<void> {
  return createDatabaseRepository(dataSource).ping();
}
