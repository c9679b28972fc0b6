import type { DataSource } from 'typeorm';
import { NonceCache } from './nonce-cache';

/** Plivo and Vobiz sign a nonce but no timestamp: remembering nonces is their only replay defence. */
export interface NonceStore {
  /** True the first time `nonce` is claimed within the window; false for a replay. */
  claim(nonce: string): Promise<boolean>;
}

export const NONCE_TTL_SECONDS = 15 * 60;

/** Expired nonces deleted per claim, so the table stays small without a separate sweeper. */
const SWEEP_BATCH = 100;

/** Nonces in PostgreSQL (`webhook_nonces`), shared by every process of the deployment. */
export function postgresNonceStore(dataSource: DataSource, ttlSeconds = NONCE_TTL_SECONDS): NonceStore {
  return {
    async claim(nonce) {
      await dataSource.query(
        `DELETE FROM webhook_nonces WHERE nonce IN
           (SELECT nonce FROM webhook_nonces WHERE expires_at < now() LIMIT ${SWEEP_BATCH})`,
      );
      // One statement: of two requests with the same nonce, exactly one inserts (or revives an expired row).
      const rows = await dataSource.query<unknown[]>(
        `INSERT INTO webhook_nonces (nonce, expires_at) VALUES ($1, now() + make_interval(secs => $2))
         ON CONFLICT (nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE webhook_nonces.expires_at < now()
         RETURNING 1`,
        [nonce, ttlSeconds],
      );
      return rows.length === 1;
    },
  };
}

const processNonces = new NonceCache(NONCE_TTL_SECONDS * 1000);

/**
 * The store a provider adapter uses: PostgreSQL when its context has the database (the API and the
 * worker always do); otherwise this process's memory, which only a process without a database
 * (a unit test of a signature) relies on.
 */
export function nonceStoreOf(dataSource: DataSource | undefined): NonceStore {
  if (dataSource) return postgresNonceStore(dataSource);
  return { claim: (nonce) => Promise.resolve(processNonces.claim(nonce)) };
}
