import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Organizations' tools (HTTP requests, ending the call, arithmetic) that agent nodes offer the model. */
export class Tools1795000005500 implements MigrationInterface {
  name = 'Tools1795000005500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE tools (
                     id uuid PRIMARY KEY,
                     organization_id integer NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
                     name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
                     description text NOT NULL DEFAULT '' CHECK (length(description) <= 4000),
                     category text NOT NULL CHECK (category IN ('http_api', 'end_call', 'calculator')),
                     status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
                     definition jsonb NOT NULL,
                     created_at timestamptz NOT NULL DEFAULT now(),
                     updated_at timestamptz NOT NULL DEFAULT now())`);
    // Lists are per organization, newest first; the quota counts per organization.
    await q.query(`CREATE INDEX tools_organization_created ON tools (organization_id, created_at DESC, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE tools`);
  }
}
