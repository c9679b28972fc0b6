import type { DataSource, EntityManager } from 'typeorm';
import { repositoryOver } from './repository';

/** Expired nonces deleted per sweep, so the table stays small without a separate sweeper. */
const SWEEP_BATCH = 100;

/** The statements on `webhook_nonces`: the signed nonces seen, until they expire. */
export function nonceStatements(manager: EntityManager) {
  return {
    /** Deletes a batch of expired nonces. */
    async sweepExpired(): Promise<void> {
      await manager.query(
        `DELETE FROM webhook_nonces WHERE nonce IN
           (SELECT nonce FROM webhook_nonces WHERE expires_at < now() LIMIT ${SWEEP_BATCH})`,
      );
    },

    /**
     * Records the nonce for `ttlSeconds`: true when it was new (or had expired), false for a replay.
     * One statement: of two requests with the same nonce, exactly one inserts (or revives an expired row).
     */
    async claim(nonce: string, ttlSeconds: number): Promise<boolean> {
      const rows = await manager.query<unknown[]>(
        `INSERT INTO webhook_nonces (nonce, expires_at) VALUES ($1, now() + make_interval(secs => $2))
         ON CONFLICT (nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE webhook_nonces.expires_at < now()
         RETURNING 1`,
        [nonce, ttlSeconds],
      );
      return rows.length === 1;
    },
  };
}

export const createNonceRepository = (dataSource: DataSource) => repositoryOver(dataSource, nonceStatements);

export type NonceRepository = ReturnType<typeof createNonceRepository>;
