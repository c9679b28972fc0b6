import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Quotas count an organization's rows on every create (api/quotas.ts); contact lists were the one
 * quota'd table without an index on their organization.
 */
export class QuotaIndexes1795000003200 implements MigrationInterface {
  name = 'QuotaIndexes1795000003200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX campaign_sources_organization_id_idx ON campaign_sources (organization_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX campaign_sources_organization_id_idx`);
  }
}
