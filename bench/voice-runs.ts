import type { Client as PgClient } from 'pg';
import type { TurnLatency } from '../agent-runtime/contract';
import type { RunRecord } from './voice-figures';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls PostgreSQL until every run is completed (or the time is up); returns what they recorded. */
export async function readRuns(pg: PgClient, runIds: number[], timeoutMs: number): Promise<RunRecord[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await pg.query<{
      id: number;
      is_completed: boolean;
      call_status: string | null;
      turn_latency: TurnLatency[] | null;
      tool_calls: RunRecord['toolCalls'] | null;
    }>(
      `SELECT id, is_completed, gathered_context->>'call_status' AS call_status, logs->'turn_latency' AS turn_latency,
              logs->'tool_calls' AS tool_calls
         FROM runs WHERE id = ANY($1::int[])`,
      [runIds],
    );
    if (rows.every((row) => row.is_completed) || Date.now() > deadline) {
      return rows.map((row) => ({
        id: row.id,
        isCompleted: row.is_completed,
        callStatus: row.call_status,
        turnLatency: row.turn_latency ?? [],
        toolCalls: row.tool_calls ?? [],
      }));
    }
    await sleep(250);
  }
}
