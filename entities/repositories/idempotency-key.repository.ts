import type { DataSource, EntityManager } from 'typeorm';
import { repositoryOver } from './repository';

/** How long a key's first answer is replayed. */
const KEY_TTL = '24 hours';
/**
 * How long a reservation without an answer holds its key: far longer than any request takes, so
 * only one whose process died is ever taken over.
 */
const IN_FLIGHT_TTL = '10 minutes';

/** The statements on `call_idempotency_keys`: one row per (organization, key) and its first answer. */
export function idempotencyKeyStatements(manager: EntityManager) {
  return {
    /**
     * Reserves the key for this request: true when it was free, had expired, or was reserved by a
     * request that never answered (IN_FLIGHT_TTL); false when another request holds it.
     */
    async reserve(organizationId: number, key: string, requestHash: string): Promise<boolean> {
      const reserved = await manager.query<unknown[]>(
        `INSERT INTO call_idempotency_keys (organization_id, key, request_hash) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, response = NULL, created_at = now()
       WHERE call_idempotency_keys.created_at < now() - interval '${KEY_TTL}'
          OR (call_idempotency_keys.response IS NULL
              AND call_idempotency_keys.created_at < now() - interval '${IN_FLIGHT_TTL}')
     RETURNING 1`,
        [organizationId, key, requestHash],
      );
      return reserved.length > 0;
    },

    /** The request the key was reserved for and its answer (null while in flight); null when the key is free. */
    async find<T>(organizationId: number, key: string): Promise<{ request_hash: string; response: T | null } | null> {
      const [first] = await manager.query<{ request_hash: string; response: T | null }[]>(
        `SELECT request_hash, response FROM call_idempotency_keys WHERE organization_id = $1 AND key = $2`,
        [organizationId, key],
      );
      return first ?? null;
    },

    /** Frees the key: its request failed before anything was done. */
    async release(organizationId: number, key: string): Promise<void> {
      await manager.query(`DELETE FROM call_idempotency_keys WHERE organization_id = $1 AND key = $2`, [
        organizationId,
        key,
      ]);
    },

    /** Stores the answer the key replays from now on. */
    async saveResponse(organizationId: number, key: string, response: unknown): Promise<void> {
      await manager.query(`UPDATE call_idempotency_keys SET response = $3 WHERE organization_id = $1 AND key = $2`, [
        organizationId,
        key,
        JSON.stringify(response),
      ]);
    },
  };
}

export const createIdempotencyKeyRepository = (dataSource: DataSource) =>
  repositoryOver(dataSource, idempotencyKeyStatements);

export type IdempotencyKeyRepository = ReturnType<typeof createIdempotencyKeyRepository>;
