import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Post-call analysis: a run keeps the analyses a rerun replaced. */
export class PostCallAnalysis1795000007100 implements MigrationInterface {
  name = 'PostCallAnalysis1795000007100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs ADD COLUMN analysis_history jsonb NOT NULL DEFAULT '[]'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs DROP COLUMN analysis_history`);
  }
}
