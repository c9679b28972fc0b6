import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A user's session generation is written into each session token; raising it (logout, password
 * change) revokes every token issued before. API keys get a scope; existing keys keep the full
 * access they had.
 */
export class SessionRevocationAndKeyScopes1795000002200 implements MigrationInterface {
  name = 'SessionRevocationAndKeyScopes1795000002200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE users ADD COLUMN session_generation integer NOT NULL DEFAULT 0`);
    await q.query(
      `ALTER TABLE api_keys ADD COLUMN scope text NOT NULL DEFAULT 'admin'
         CONSTRAINT api_keys_scope_check CHECK (scope IN ('read', 'calls', 'admin'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE api_keys DROP COLUMN scope`);
    await q.query(`ALTER TABLE users DROP COLUMN session_generation`);
  }
}
