import type { DataSource } from 'typeorm';

/**
 * Which runs have a media stream open, in PostgreSQL (`media_stream_claims`), so that a run has one
 * stream at a time across every API process: two would speak to the same call twice. A claim is
 * taken as a stream is admitted and released once the stream is over (or failed to open). A run
 * whose stream is over gets another only while the run goes on (the provider streams the caller back
 * after a transfer that did not connect); that stream carries on the recording. A claim left by a
 * process that died stays: that call's stream is gone, and the run never gets another.
 */
export interface MediaStreamClaims {
  /**
   * Claims the run's stream: the run (of this provider) as the stream needs it (`recorded`: an
   * earlier stream's recording is kept), or `taken` when another stream holds it or the run is over
   * after one, or `missing` when there is no such run.
   */
  claim(
    runId: number,
    provider: string,
  ): Promise<{ id: number; agentId: number; recorded: boolean } | 'taken' | 'missing'>;
  release(runId: number): Promise<void>;
}

export function postgresStreamClaims(dataSource: DataSource): MediaStreamClaims {
  return {
    async claim(runId, provider) {
      // One statement: of two processes admitting the same run, exactly one inserts.
      const rows = await dataSource.query<{ id: number; agent_id: number; recorded: boolean; claimed: boolean }[]>(
        `WITH run AS (SELECT id, workflow_id AS agent_id, recording_url IS NOT NULL AS recorded, is_completed
                        FROM runs WHERE id = $1 AND mode = $2),
              claimed AS (INSERT INTO media_stream_claims (run_id)
                          SELECT id FROM run WHERE NOT (recorded AND is_completed)
                          ON CONFLICT (run_id) DO NOTHING RETURNING run_id)
         SELECT run.id, run.agent_id, run.recorded, EXISTS (SELECT 1 FROM claimed) AS claimed FROM run`,
        [runId, provider],
      );
      const [run] = rows;
      if (!run) return 'missing';
      if (!run.claimed) return 'taken';
      return { id: run.id, agentId: run.agent_id, recorded: run.recorded };
    },
    async release(runId) {
      await dataSource.query('DELETE FROM media_stream_claims WHERE run_id = $1', [runId]);
    },
  };
}
