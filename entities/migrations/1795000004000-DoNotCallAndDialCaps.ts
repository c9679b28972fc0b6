import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each organization's do-not-call list, the dials counted against its frequency caps, and the
 * campaign counters of contacts those rules held back. A dial is counted once per dial key (the
 * provider idempotency key: workflow id and attempt), so a retried check never counts twice; the
 * index serves the rolling-window count of one number.
 */
export class DoNotCallAndDialCaps1795000004000 implements MigrationInterface {
  name = 'DoNotCallAndDialCaps1795000004000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE do_not_call_numbers (
         id serial PRIMARY KEY,
         organization_id integer NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
         phone_number text NOT NULL,
         reason text,
         source text NOT NULL,
         run_id integer,
         created_at timestamptz NOT NULL DEFAULT now(),
         CONSTRAINT do_not_call_numbers_source_check CHECK (source IN ('api', 'import', 'opt_out')),
         CONSTRAINT do_not_call_numbers_organization_id_phone_number_key UNIQUE (organization_id, phone_number)
       )`,
    );
    await q.query(
      `CREATE TABLE dial_claims (
         id bigserial PRIMARY KEY,
         organization_id integer NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
         phone_number text NOT NULL,
         dial_key text NOT NULL UNIQUE,
         claimed_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    await q.query(`CREATE INDEX dial_claims_number_idx ON dial_claims (organization_id, phone_number, claimed_at)`);
    await q.query(
      `ALTER TABLE campaigns ADD COLUMN dnc_skipped_count integer NOT NULL DEFAULT 0,
                             ADD COLUMN frequency_capped_count integer NOT NULL DEFAULT 0`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns DROP COLUMN dnc_skipped_count, DROP COLUMN frequency_capped_count`);
    await q.query(`DROP TABLE dial_claims`);
    await q.query(`DROP TABLE do_not_call_numbers`);
  }
}
