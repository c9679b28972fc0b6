import type { DataSource, EntityManager } from 'typeorm';
import { repositoryOver } from './repository';

/** A web call as its status look-ups see it. */
export interface WebCallRow {
  runId: number;
  joinBy: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  durationSeconds: number | null;
}

/**
 * The statements on `web_calls`: the row is created with its run, the API process holding the
 * call's stream marks its start and end, and the worker's look-ups read it. Ending keeps the first
 * end (the browser leaving, or our hang-up).
 */
export function webCallStatements(manager: EntityManager) {
  return {
    /** The web call of a new run, which its browser must join by `joinBy`. */
    async insert(runId: number, joinBy: Date): Promise<void> {
      await manager.query('INSERT INTO web_calls (run_id, join_by) VALUES ($1, $2)', [runId, joinBy]);
    },

    /** Marks the call started; its run's provider call id, or null when it is no web call. */
    async started(runId: number): Promise<string | null> {
      const [row] = await manager.query<{ provider_call_id: string }[]>(
        `UPDATE web_calls w SET started_at = COALESCE(w.started_at, now())
           FROM runs r WHERE w.run_id = $1 AND r.id = w.run_id RETURNING r.provider_call_id`,
        [runId],
      );
      return row?.provider_call_id ?? null;
    },

    /** Marks the call over: its duration in seconds, or null when it already was over. */
    async ended(runId: number, durationSeconds?: number): Promise<number | null> {
      const rows = await manager.query<{ duration_seconds: number }[]>(
        `UPDATE web_calls
            SET ended_at = now(),
                duration_seconds = COALESCE($2::int,
                  CASE WHEN started_at IS NULL THEN 0
                       ELSE GREATEST(0, round(extract(epoch FROM now() - started_at)))::int END)
          WHERE run_id = $1 AND ended_at IS NULL
          RETURNING duration_seconds`,
        [runId, durationSeconds === undefined ? null : Math.round(durationSeconds)],
      );
      return rows[0]?.duration_seconds ?? null;
    },

    /** The web call whose run has this provider call id. */
    async byCallId(providerCallId: string): Promise<WebCallRow | null> {
      const [row] = await manager.query<WebCallRow[]>(
        `SELECT w.run_id AS "runId", w.join_by AS "joinBy", w.started_at AS "startedAt", w.ended_at AS "endedAt",
                w.duration_seconds AS "durationSeconds"
           FROM web_calls w JOIN runs r ON r.id = w.run_id
          WHERE r.provider_call_id = $1 AND r.mode = 'web'`,
        [providerCallId],
      );
      return row ?? null;
    },
  };
}

export const createWebCallRepository = (dataSource: DataSource) => repositoryOver(dataSource, webCallStatements);

export type WebCallRepository = ReturnType<typeof createWebCallRepository>;
