import type { DataSource, EntityManager } from 'typeorm';

/**
 * An aggregate's named statements over a DataSource: each on its own, or several in one transaction
 * (`transaction` also hands over the transaction's manager, for a quota claim or another aggregate's
 * statements in the same transaction).
 */
export function repositoryOver<Statements extends object>(
  dataSource: DataSource,
  statements: (manager: EntityManager) => Statements,
) {
  return {
    ...statements(dataSource.manager),
    transaction<T>(work: (statements: Statements, manager: EntityManager) => Promise<T>): Promise<T> {
      return dataSource.transaction((manager) => work(statements(manager), manager));
    },
  };
}
