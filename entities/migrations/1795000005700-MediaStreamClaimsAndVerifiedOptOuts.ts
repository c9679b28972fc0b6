import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One media stream per run across every API process: a row of `media_stream_claims` is inserted
 * when a run's stream is admitted and deleted when it ends, so a second stream for the run, on any
 * process, is refused by the primary key. And whether the provider verified an inbound caller's
 * number (STIR/SHAKEN), kept on the run and copied onto the caller's opt-out, so a do-not-call
 * entry listed from a number that may have been spoofed says so. Opt-outs listed before this are
 * marked as their runs allow: a callee we dialed is verified, an inbound caller is not known to be.
 */
export class MediaStreamClaimsAndVerifiedOptOuts1795000005700 implements MigrationInterface {
  name = 'MediaStreamClaimsAndVerifiedOptOuts1795000005700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE media_stream_claims (
         run_id integer PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
         claimed_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    await q.query(`ALTER TABLE runs ADD COLUMN caller_id_verified boolean`);
    await q.query(`ALTER TABLE do_not_call_numbers ADD COLUMN caller_id_verified boolean`);
    await q.query(
      `UPDATE do_not_call_numbers d
          SET caller_id_verified = COALESCE((SELECT r.call_type <> 'inbound' FROM runs r WHERE r.id = d.run_id), false)
        WHERE d.source = 'opt_out'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE do_not_call_numbers DROP COLUMN caller_id_verified`);
    await q.query(`ALTER TABLE runs DROP COLUMN caller_id_verified`);
    await q.query(`DROP TABLE media_stream_claims`);
  }
}
