import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Nonces of signed provider webhooks (Plivo, Vobiz) seen within their replay window, shared by
 * every API and worker process: a captured request replayed to any of them is refused. Expired rows
 * are overwritten by the next claim of the same nonce and deleted in small batches by later claims.
 */
export class WebhookNonces1795000002300 implements MigrationInterface {
  name = 'WebhookNonces1795000002300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE webhook_nonces (nonce text PRIMARY KEY, expires_at timestamptz NOT NULL)`);
    await q.query(`CREATE INDEX webhook_nonces_expires_at_idx ON webhook_nonces (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_nonces`);
  }
}
