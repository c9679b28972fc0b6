import type { DataSource, EntityManager } from 'typeorm';
import { repositoryOver } from './repository';

/** What readiness and the workers' health checks ask of PostgreSQL itself. */
export function databaseStatements(manager: EntityManager) {
  return {
    /** Resolves once PostgreSQL answered a trivial statement. */
    async ping(): Promise<void> {
      await manager.query('SELECT 1');
    },

    /** The database's clock and name. */
    async clock(): Promise<{ now: Date; name: string } | null> {
      const [row] = await manager.query<{ now: Date; name: string }[]>(
        'SELECT now() AS now, current_database() AS name',
      );
      return row ?? null;
    },
  };
}

export const createDatabaseRepository = (dataSource: DataSource) => repositoryOver(dataSource, databaseStatements);

export type DatabaseRepository = ReturnType<typeof createDatabaseRepository>;
