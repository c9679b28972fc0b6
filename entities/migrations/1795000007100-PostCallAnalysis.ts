import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Post-call analysis: a run keeps the analyses a rerun replaced, and the runs lists filter on the
 * results. Containment on `annotations` (tags, success, a typed field's value) uses one GIN index;
 * the run-level score has an expression index per list scope.
 */
export class PostCallAnalysis1795000007100 implements MigrationInterface {
  name = 'PostCallAnalysis1795000007100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs ADD COLUMN analysis_history jsonb NOT NULL DEFAULT '[]'`);
    await q.query(`CREATE INDEX runs_annotations_idx ON runs USING gin (annotations jsonb_path_ops)`);
    await q.query(
      `CREATE INDEX runs_workflow_analysis_score_idx ON runs (workflow_id, ((annotations #>> '{analysis,score}')::numeric))
        WHERE annotations ? 'analysis'`,
    );
    await q.query(
      `CREATE INDEX runs_organization_analysis_score_idx ON runs (organization_id, ((annotations #>> '{analysis,score}')::numeric))
        WHERE annotations ? 'analysis'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX runs_organization_analysis_score_idx`);
    await q.query(`DROP INDEX runs_workflow_analysis_score_idx`);
    await q.query(`DROP INDEX runs_annotations_idx`);
    await q.query(`ALTER TABLE runs DROP COLUMN analysis_history`);
  }
}
