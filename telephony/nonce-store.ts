import type { DataSource } from 'typeorm';
import { createNonceRepository } from '../entities/repositories/nonce.repository';
import { NonceCache } from './nonce-cache';

/** Plivo and Vobiz sign a nonce but no timestamp: remembering nonces is their only replay defence. */
export interface NonceStore {
  /** True the first time `nonce` is claimed within the window; false for a replay. */
  claim(nonce: string): Promise<boolean>;
}

export const NONCE_TTL_SECONDS = 15 * 60;

/** Nonces in PostgreSQL (`webhook_nonces`), shared by every process of the deployment. */
export function postgresNonceStore(dataSource: DataSource, ttlSeconds = NONCE_TTL_SECONDS): NonceStore {
  const nonces = createNonceRepository(dataSource);
  return {
    async claim(nonce) {
      // Each claim sweeps a batch of expired nonces, so the table stays small without a separate sweeper.
      await nonces.sweepExpired();
      return nonces.claim(nonce, ttlSeconds);
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
