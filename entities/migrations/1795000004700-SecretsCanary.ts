import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One value sealed under SECRETS_KEY at the first start, which every later start opens: a start
 * with another key is refused before it can store anything it could not read back, or fail to
 * read what is stored. Written by the processes (sealing needs the key, which SQL does not have).
 */
export class SecretsCanary1795000004700 implements MigrationInterface {
  name = 'SecretsCanary1795000004700';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE secrets_canary (
         id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
         sealed text NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE secrets_canary`);
  }
}
