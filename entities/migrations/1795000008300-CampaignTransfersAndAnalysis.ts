import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A campaign counts the contacts whose call was transferred to a person, and reports its analysed
 * calls' success, sentiment and tags: those are read from the campaign's runs that have an
 * analysis, through a partial index that holds only them.
 */
export class CampaignTransfersAndAnalysis1795000008300 implements MigrationInterface {
  name = 'CampaignTransfersAndAnalysis1795000008300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaigns ADD COLUMN transferred_count integer NOT NULL DEFAULT 0`);
    await q.query(
      `CREATE INDEX runs_campaign_analysis_idx ON runs (campaign_id)
        WHERE campaign_id IS NOT NULL AND annotations ? 'analysis'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX runs_campaign_analysis_idx`);
    await q.query(`ALTER TABLE campaigns DROP COLUMN transferred_count`);
  }
}
