import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Login failure counters, one row per throttle key (`email:<address>` or `ip:<address>`), in a fixed
 * window. They live in PostgreSQL so every API replica sees the same counts.
 */
export class LoginThrottle1795000000100 implements MigrationInterface {
  name = 'LoginThrottle1795000000100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE login_failures (
        key text PRIMARY KEY,
        window_started_at timestamptz NOT NULL,
        failure_count integer NOT NULL CHECK (failure_count >= 0)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE login_failures`);
  }
}
