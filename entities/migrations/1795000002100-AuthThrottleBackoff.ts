import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Login failures and signups are throttled by progressive backoff instead of a fixed window: each
 * key (`email:`, `ip:`, `signup:`) keeps its count, when it last counted, and until when the next
 * attempt must wait. The old window counts mean nothing under the new rule, so they are dropped.
 */
export class AuthThrottleBackoff1795000002100 implements MigrationInterface {
  name = 'AuthThrottleBackoff1795000002100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM login_failures`);
    await q.query(`ALTER TABLE login_failures RENAME TO auth_throttle`);
    await q.query(`ALTER TABLE auth_throttle RENAME CONSTRAINT login_failures_pkey TO auth_throttle_pkey`);
    await q.query(`ALTER TABLE auth_throttle RENAME COLUMN window_started_at TO last_counted_at`);
    await q.query(`ALTER TABLE auth_throttle ADD COLUMN blocked_until timestamptz`);
    await q.query(`CREATE INDEX auth_throttle_last_counted_at_idx ON auth_throttle (last_counted_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM auth_throttle`);
    await q.query(`DROP INDEX auth_throttle_last_counted_at_idx`);
    await q.query(`ALTER TABLE auth_throttle DROP COLUMN blocked_until`);
    await q.query(`ALTER TABLE auth_throttle RENAME COLUMN last_counted_at TO window_started_at`);
    await q.query(`ALTER TABLE auth_throttle RENAME CONSTRAINT auth_throttle_pkey TO login_failures_pkey`);
    await q.query(`ALTER TABLE auth_throttle RENAME TO login_failures`);
  }
}
