import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Inbound webhooks find the called number among every organization's numbers (by normalized
 * address alone), and provider events find their run by the provider's call id: both without a
 * table scan.
 */
export class InboundLookups1795000001100 implements MigrationInterface {
  name = 'InboundLookups1795000001100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX phone_numbers_address_normalized_idx ON phone_numbers (address_normalized)`);
    await q.query(
      `CREATE INDEX runs_provider_call_id_idx ON runs (provider_call_id) WHERE provider_call_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX runs_provider_call_id_idx`);
    await q.query(`DROP INDEX phone_numbers_address_normalized_idx`);
  }
}
