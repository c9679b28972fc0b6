import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Call transfers: the `transfer_call` tool category, and the simulator's transfers (like its calls,
 * a row and the clock give each one's status in any process).
 */
export class CallTransfers1795000007000 implements MigrationInterface {
  name = 'CallTransfers1795000007000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tools DROP CONSTRAINT tools_category_check,
                     ADD CONSTRAINT tools_category_check
                       CHECK (category IN ('http_api', 'end_call', 'calculator', 'transfer_call'))`);
    await q.query(`CREATE TABLE simulator_transfers (
      transfer_id text PRIMARY KEY,
      provider_call_id text NOT NULL REFERENCES simulator_calls (provider_call_id) ON DELETE CASCADE,
      idempotency_key text NOT NULL UNIQUE,
      destination text NOT NULL,
      planned_outcome text NOT NULL,
      started_at timestamptz NOT NULL,
      ring_seconds integer NOT NULL,
      callback_url text NOT NULL,
      canceled_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
    await q.query(`CREATE INDEX simulator_transfers_call_idx ON simulator_transfers (provider_call_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE simulator_transfers`);
    await q.query(`DELETE FROM tools WHERE category = 'transfer_call'`);
    await q.query(`ALTER TABLE tools DROP CONSTRAINT tools_category_check,
                     ADD CONSTRAINT tools_category_check CHECK (category IN ('http_api', 'end_call', 'calculator'))`);
  }
}
