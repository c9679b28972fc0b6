import type { PoolClient } from 'pg';
import type { EntityManager } from 'typeorm';

/** Rows counted by a quota: the table, and the column that scopes them (an organization or an agent). */
export interface CountedRows {
  table: string;
  scope: string;
}

type Rows = <T>(sql: string, parameters: unknown[]) => Promise<T[]>;

function quotaStatementsOver(rows: Rows) {
  return {
    /** Waits for, then holds until the transaction ends, the advisory lock of one quota's scope. */
    async lockScope(lockSpace: number, scopeId: number): Promise<void> {
      await rows('SELECT pg_advisory_xact_lock($1, $2)', [lockSpace, scopeId]);
    },

    /** The rows of the scope, in a statement of its own so that its snapshot follows the lock. */
    async countScoped({ table, scope }: CountedRows, scopeId: number): Promise<number> {
      const [counted] = await rows<{ count: number }>(
        `SELECT count(*)::int AS count FROM ${table} WHERE ${scope} = $1`,
        [scopeId],
      );
      return counted?.count ?? 0;
    },
  };
}

/** The statements of a quota claim inside the transaction of `manager`. */
export const quotaStatements = (manager: EntityManager) =>
  quotaStatementsOver((sql, parameters) => manager.query(sql, parameters));

/** The same on a raw pg client inside its own transaction. */
export const quotaStatementsOnClient = (client: PoolClient) =>
  quotaStatementsOver(
    async <T>(sql: string, parameters: unknown[]) => (await client.query(sql, parameters)).rows as T[],
  );

export type QuotaStatements = ReturnType<typeof quotaStatementsOver>;
