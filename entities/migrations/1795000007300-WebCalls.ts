import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A call from a browser (provider `web`) as any process can follow it: until when it may be
 * joined, when its media stream began and ended. The worker's status look-ups read it; the API
 * process holding the stream writes it.
 */
export class WebCalls1795000007300 implements MigrationInterface {
  name = 'WebCalls1795000007300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE web_calls (
         run_id integer PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
         join_by timestamptz NOT NULL,
         started_at timestamptz,
         ended_at timestamptz,
         duration_seconds integer
       )`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE web_calls`);
  }
}
