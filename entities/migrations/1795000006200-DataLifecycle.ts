import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Deleting data: a contact list may go while finished campaigns that dialed it stay (their
 * `source_id` becomes null; their counters and logs remain), an erased run keeps its usage totals
 * and records when its personal data was erased, and an organization may keep recordings and
 * transcripts for a bounded number of days.
 */
export class DataLifecycle1795000006200 implements MigrationInterface {
  name = 'DataLifecycle1795000006200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns
                     DROP CONSTRAINT campaigns_source_id_fkey,
                     ALTER COLUMN source_id DROP NOT NULL,
                     ADD CONSTRAINT campaigns_source_id_fkey
                       FOREIGN KEY (source_id) REFERENCES campaign_sources (id) ON DELETE SET NULL`);
    await q.query(`CREATE INDEX campaigns_source_idx ON campaigns (source_id) WHERE source_id IS NOT NULL`);
    await q.query(`ALTER TABLE runs ADD COLUMN erased_at timestamptz`);
    // The retention sweep looks for the oldest runs of an organization that still hold personal data.
    await q.query(
      `CREATE INDEX runs_unerased_created_idx ON runs (organization_id, created_at) WHERE erased_at IS NULL`,
    );
    // Erasing a person finds their runs through the trigram indexes on both numbers (GIN trigram
    // indexes answer equality too): a btree on (organization, number) would win the planner over
    // them for the runs list's contains-filter, and read every run of the organization.
    await q.query(`ALTER TABLE organizations
                     ADD COLUMN retention_days integer CHECK (retention_days BETWEEN 1 AND 36500)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE organizations DROP COLUMN retention_days`);
    await q.query(`DROP INDEX runs_unerased_created_idx`);
    await q.query(`ALTER TABLE runs DROP COLUMN erased_at`);
    await q.query(`DROP INDEX campaigns_source_idx`);
    await q.query(`DELETE FROM campaigns WHERE source_id IS NULL`);
    await q.query(`ALTER TABLE campaigns
                     DROP CONSTRAINT campaigns_source_id_fkey,
                     ALTER COLUMN source_id SET NOT NULL,
                     ADD CONSTRAINT campaigns_source_id_fkey FOREIGN KEY (source_id) REFERENCES campaign_sources (id)`);
  }
}
