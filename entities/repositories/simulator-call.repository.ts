import type { DataSource, EntityManager } from 'typeorm';
import type { SimulatorCall } from '../simulator-call.entity';
import { repositoryOver } from './repository';

/** A simulator call row as the adapter reads it. */
export type SimulatorCallRow = Omit<SimulatorCall, 'createdAt'>;

const COLUMNS = `provider_call_id AS "providerCallId", idempotency_key AS "idempotencyKey",
  to_address AS "toAddress", from_address AS "fromAddress", status_callback_url AS "statusCallbackUrl",
  started_at AS "startedAt", planned_outcome AS "plannedOutcome", ring_seconds AS "ringSeconds",
  talk_seconds AS "talkSeconds", hung_up_at AS "hungUpAt"`;

/**
 * The simulator's statements on its calls, written by hand: the ORM's query building cost the
 * worker more than the statements themselves on every simulated dial.
 */
export function simulatorCallStatements(manager: EntityManager) {
  const one = async (where: string, value: string): Promise<SimulatorCallRow | null> => {
    const [row] = await manager.query<SimulatorCallRow[]>(
      `SELECT ${COLUMNS} FROM simulator_calls WHERE ${where} = $1`,
      [value],
    );
    return row ?? null;
  };
  return {
    /** Inserts the call unless its idempotency key (or id) is taken; true when inserted. */
    async insert(call: SimulatorCallRow): Promise<boolean> {
      const inserted = await manager.query<unknown[]>(
        `INSERT INTO simulator_calls (provider_call_id, idempotency_key, to_address, from_address,
           status_callback_url, started_at, planned_outcome, ring_seconds, talk_seconds, hung_up_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
         ON CONFLICT DO NOTHING RETURNING provider_call_id`,
        [
          call.providerCallId,
          call.idempotencyKey,
          call.toAddress,
          call.fromAddress,
          call.statusCallbackUrl,
          call.startedAt,
          call.plannedOutcome,
          call.ringSeconds,
          call.talkSeconds,
          call.hungUpAt,
        ],
      );
      return inserted.length > 0;
    },
    /** Marks the call hung up at `at`, unless it already was; false when nothing changed. */
    async hangUp(providerCallId: string, at: Date): Promise<boolean> {
      // A SELECT around the UPDATE: the ORM answers a bare UPDATE with [rows, count] instead of rows.
      const [row] = await manager.query<{ changed: boolean }[]>(
        `WITH hung AS (UPDATE simulator_calls SET hung_up_at = $2
                        WHERE provider_call_id = $1 AND hung_up_at IS NULL RETURNING 1)
         SELECT count(*) > 0 AS changed FROM hung`,
        [providerCallId, at],
      );
      return row?.changed === true;
    },
    /** When the last call from this caller number was placed, if any. */
    async lastDialFrom(fromAddress: string | null): Promise<Date | null> {
      const [row] = await manager.query<{ at: Date | null }[]>(
        `SELECT max(started_at) AS at FROM simulator_calls WHERE from_address IS NOT DISTINCT FROM $1`,
        [fromAddress],
      );
      return row?.at ?? null;
    },
    byId: (providerCallId: string) => one('provider_call_id', providerCallId),
    byIdempotencyKey: (key: string) => one('idempotency_key', key),
  };
}

export const createSimulatorCallRepository = (dataSource: DataSource) =>
  repositoryOver(dataSource, simulatorCallStatements);

export type SimulatorCallRepository = ReturnType<typeof createSimulatorCallRepository>;
