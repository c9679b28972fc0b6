import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The do-not-call list is read a page at a time, newest first, and searched by the start of a
 * number or of a reason: each of these reads a range of one index of the organization's entries,
 * however long its list (`text_pattern_ops` serves `LIKE 'prefix%'` whatever the collation). The
 * quota counts the organization's entries on the first of them.
 */
export class DoNotCallListIndexes1795000004800 implements MigrationInterface {
  name = 'DoNotCallListIndexes1795000004800';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX do_not_call_numbers_organization_id_id_idx ON do_not_call_numbers (organization_id, id)`,
    );
    await q.query(
      `CREATE INDEX do_not_call_numbers_number_prefix_idx
         ON do_not_call_numbers (organization_id, phone_number text_pattern_ops)`,
    );
    await q.query(
      `CREATE INDEX do_not_call_numbers_reason_prefix_idx
         ON do_not_call_numbers (organization_id, lower(reason) text_pattern_ops)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX do_not_call_numbers_reason_prefix_idx`);
    await q.query(`DROP INDEX do_not_call_numbers_number_prefix_idx`);
    await q.query(`DROP INDEX do_not_call_numbers_organization_id_id_idx`);
  }
}
