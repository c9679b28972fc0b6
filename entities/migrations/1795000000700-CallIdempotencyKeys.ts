import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `Idempotency-Key` of the call API: one row per (organization, key) holding a hash of the request
 * and, once the call started, the first response. In PostgreSQL, so every API replica sees them.
 * A row whose `response` is null is a request still in flight; rows older than 24 h are replaced.
 */
export class CallIdempotencyKeys1795000000700 implements MigrationInterface {
  name = 'CallIdempotencyKeys1795000000700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE call_idempotency_keys (
        organization_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        key text NOT NULL,
        request_hash text NOT NULL,
        response jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, key)
      )`);
    // Expired keys are purged by age.
    await q.query(`CREATE INDEX call_idempotency_keys_created_at_idx ON call_idempotency_keys (created_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE call_idempotency_keys`);
  }
}
