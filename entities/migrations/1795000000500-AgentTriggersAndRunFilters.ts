import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agents: the trigger-path index and one published version per agent. Runs: the indexes behind the
 * run-list and usage filters, and a trigger that keeps the filtered columns equal to the JSON fields
 * the interface defines them by (`initial_context.caller_number`, `initial_context.called_number`,
 * `gathered_context.mapped_call_disposition`), whichever side a writer sets.
 */
export class AgentTriggersAndRunFilters1795000000500 implements MigrationInterface {
  name = 'AgentTriggersAndRunFilters1795000000500';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agent_triggers (
        trigger_path uuid PRIMARY KEY,
        agent_id integer NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        organization_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX agent_triggers_agent_id_idx ON agent_triggers (agent_id)`);
    // Versions are published one at a time: the previous one is archived in the same transaction.
    await q.query(`
      CREATE UNIQUE INDEX agent_versions_one_published_idx ON agent_versions (agent_id) WHERE status = 'published'`);

    // Substring search on phone numbers (`LIKE '%...%'`) needs trigram indexes; pg_trgm is trusted
    // (PostgreSQL 13+), so a database owner may create it.
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`CREATE INDEX runs_caller_number_trgm_idx ON runs USING gin (caller_number gin_trgm_ops)`);
    await q.query(`CREATE INDEX runs_called_number_trgm_idx ON runs USING gin (called_number gin_trgm_ops)`);
    await q.query(`CREATE INDEX runs_organization_disposition_idx ON runs (organization_id, disposition)`);
    await q.query(`CREATE INDEX runs_organization_duration_idx ON runs (organization_id, call_duration_seconds)`);
    await q.query(`CREATE INDEX runs_workflow_duration_idx ON runs (workflow_id, call_duration_seconds)`);
    await q.query(`CREATE INDEX runs_workflow_disposition_idx ON runs (workflow_id, disposition)`);

    await q.query(`
      CREATE FUNCTION runs_sync_filter_columns() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.initial_context ? 'caller_number' THEN
          NEW.caller_number := NEW.initial_context->>'caller_number';
        ELSIF NEW.caller_number IS NOT NULL THEN
          NEW.initial_context := NEW.initial_context || jsonb_build_object('caller_number', NEW.caller_number);
        END IF;
        IF NEW.initial_context ? 'called_number' THEN
          NEW.called_number := NEW.initial_context->>'called_number';
        ELSIF NEW.called_number IS NOT NULL THEN
          NEW.initial_context := NEW.initial_context || jsonb_build_object('called_number', NEW.called_number);
        END IF;
        IF NEW.gathered_context ? 'mapped_call_disposition' THEN
          NEW.disposition := NEW.gathered_context->>'mapped_call_disposition';
        ELSIF NEW.disposition IS NOT NULL THEN
          NEW.gathered_context :=
            NEW.gathered_context || jsonb_build_object('mapped_call_disposition', NEW.disposition);
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER runs_sync_filter_columns BEFORE INSERT OR UPDATE ON runs
        FOR EACH ROW EXECUTE FUNCTION runs_sync_filter_columns()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER runs_sync_filter_columns ON runs`);
    await q.query(`DROP FUNCTION runs_sync_filter_columns()`);
    for (const index of [
      'runs_workflow_disposition_idx',
      'runs_workflow_duration_idx',
      'runs_organization_duration_idx',
      'runs_organization_disposition_idx',
      'runs_called_number_trgm_idx',
      'runs_caller_number_trgm_idx',
      'agent_versions_one_published_idx',
    ]) {
      await q.query(`DROP INDEX ${index}`);
    }
    // pg_trgm stays: other objects may have come to depend on it.
    await q.query(`DROP TABLE agent_triggers`);
  }
}
