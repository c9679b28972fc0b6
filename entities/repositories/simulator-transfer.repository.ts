import type { DataSource, EntityManager } from 'typeorm';
import type { SimulatedOutcome } from '../simulator-call.entity';
import { repositoryOver } from './repository';

/** A simulator transfer row as the adapter reads it. */
export interface SimulatorTransferRow {
  transferId: string;
  providerCallId: string;
  idempotencyKey: string;
  destination: string;
  plannedOutcome: Exclude<SimulatedOutcome, 'voicemail'>;
  startedAt: Date;
  ringSeconds: number;
  callbackUrl: string;
  canceledAt: Date | null;
  /** Warm transfers: what the person heard when they answered, before the caller was joined. */
  announcement: string | null;
  /** With audio: how much hold audio the caller heard while the destination rang (set once it stopped). */
  holdAudioMs: number | null;
  /** How long the person talks once joined; null: the call's `talk_seconds`. */
  talkSeconds: number | null;
}

const COLUMNS = `transfer_id AS "transferId", provider_call_id AS "providerCallId",
  idempotency_key AS "idempotencyKey", destination, planned_outcome AS "plannedOutcome",
  started_at AS "startedAt", ring_seconds AS "ringSeconds", callback_url AS "callbackUrl",
  canceled_at AS "canceledAt", announcement, hold_audio_ms AS "holdAudioMs",
  talk_seconds AS "talkSeconds"`;

/** The simulator's statements on its transfers. */
export function simulatorTransferStatements(manager: EntityManager) {
  const one = async (where: string, value: string): Promise<SimulatorTransferRow | null> => {
    const [row] = await manager.query<SimulatorTransferRow[]>(
      `SELECT ${COLUMNS} FROM simulator_transfers WHERE ${where} = $1`,
      [value],
    );
    return row ?? null;
  };
  return {
    /** Inserts the transfer unless its idempotency key is taken; true when inserted. */
    async insert(row: SimulatorTransferRow): Promise<boolean> {
      const inserted = await manager.query<unknown[]>(
        `INSERT INTO simulator_transfers (transfer_id, provider_call_id, idempotency_key, destination,
           planned_outcome, started_at, ring_seconds, callback_url, canceled_at, announcement, talk_seconds)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT DO NOTHING RETURNING transfer_id`,
        [
          row.transferId,
          row.providerCallId,
          row.idempotencyKey,
          row.destination,
          row.plannedOutcome,
          row.startedAt,
          row.ringSeconds,
          row.callbackUrl,
          row.canceledAt,
          row.announcement,
          row.talkSeconds,
        ],
      );
      return inserted.length > 0;
    },
    /** Marks the transfer canceled at `at`, unless it already was. */
    async cancel(transferId: string, at: Date): Promise<void> {
      // A SELECT around the UPDATE: the ORM answers a bare UPDATE with [rows, count] instead of rows.
      await manager.query(
        `WITH canceled AS (UPDATE simulator_transfers SET canceled_at = $2
                            WHERE transfer_id = $1 AND canceled_at IS NULL RETURNING 1)
         SELECT count(*) FROM canceled`,
        [transferId, at],
      );
    },
    /** Records how much hold audio the caller heard, once. */
    async heldFor(transferId: string, ms: number): Promise<void> {
      await manager.query(
        `WITH held AS (UPDATE simulator_transfers SET hold_audio_ms = $2
                        WHERE transfer_id = $1 AND hold_audio_ms IS NULL RETURNING 1)
         SELECT count(*) FROM held`,
        [transferId, Math.round(ms)],
      );
    },
    byId: (transferId: string) => one('transfer_id', transferId),
    byIdempotencyKey: (key: string) => one('idempotency_key', key),
    /** The call's transfer that was answered, if one was. */
    async answeredOf(providerCallId: string): Promise<SimulatorTransferRow | null> {
      const [row] = await manager.query<SimulatorTransferRow[]>(
        `SELECT ${COLUMNS} FROM simulator_transfers
          WHERE provider_call_id = $1 AND planned_outcome = 'answered'
            AND (canceled_at IS NULL OR canceled_at >= started_at + ring_seconds * interval '1 second')
          ORDER BY started_at LIMIT 1`,
        [providerCallId],
      );
      return row ?? null;
    },
  };
}

export const createSimulatorTransferRepository = (dataSource: DataSource) =>
  repositoryOver(dataSource, simulatorTransferStatements);

export type SimulatorTransferRepository = ReturnType<typeof createSimulatorTransferRepository>;
