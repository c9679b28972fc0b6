import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contacts are written a whole file at a time (one COPY of up to millions of rows), and the
 * foreign key to `campaign_sources` looked the source up once per row: half of PostgreSQL's work
 * in an upload. The same rules now run once per statement, over the statement's rows:
 * - a write of contacts locks their sources (`FOR KEY SHARE`, as the foreign key did) and fails
 *   with `foreign_key_violation` when one does not exist, so a source deleted meanwhile is noticed;
 * - deleting a source deletes its contacts (the old `ON DELETE CASCADE`);
 * - a source's id never changes (nothing updates it; the foreign key refused it while referenced).
 * `initial_context` becomes `json`: it is stored once and read back whole, never queried inside,
 * and `json` keeps the text as written instead of building `jsonb` (a further fifth of the COPY).
 */
export class ContactSourceStatementChecks1795000001300 implements MigrationInterface {
  name = 'ContactSourceStatementChecks1795000001300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE campaign_contacts DROP CONSTRAINT campaign_contacts_source_id_fkey`);
    await q.query(`
      ALTER TABLE campaign_contacts
        ALTER COLUMN initial_context DROP DEFAULT,
        ALTER COLUMN initial_context TYPE json USING initial_context::json,
        ALTER COLUMN initial_context SET DEFAULT '{}'`);

    await q.query(`
      CREATE FUNCTION campaign_contacts_lock_sources() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        wanted text[];
        locked integer;
      BEGIN
        SELECT array_agg(source_id) INTO wanted FROM (SELECT DISTINCT source_id FROM written) AS distinct_sources;
        IF wanted IS NULL THEN
          RETURN NULL;
        END IF;
        SELECT count(*) INTO locked
          FROM (SELECT 1 FROM campaign_sources WHERE id = ANY (wanted) FOR KEY SHARE) AS present;
        IF locked < cardinality(wanted) THEN
          RAISE foreign_key_violation USING
            MESSAGE = 'campaign_contacts.source_id refers to a campaign source that does not exist',
            TABLE = 'campaign_contacts';
        END IF;
        RETURN NULL;
      END $$`);
    // A trigger with transition tables takes one event only: one for inserts, one for updates.
    await q.query(`
      CREATE TRIGGER campaign_contacts_sources_on_insert AFTER INSERT ON campaign_contacts
        REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION campaign_contacts_lock_sources()`);
    await q.query(`
      CREATE TRIGGER campaign_contacts_sources_on_update AFTER UPDATE ON campaign_contacts
        REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION campaign_contacts_lock_sources()`);

    await q.query(`
      CREATE FUNCTION campaign_sources_delete_contacts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM campaign_contacts WHERE source_id IN (SELECT id FROM removed);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER campaign_sources_delete_contacts AFTER DELETE ON campaign_sources
        REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION campaign_sources_delete_contacts()`);

    await q.query(`
      CREATE FUNCTION campaign_sources_keep_id() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE foreign_key_violation USING
          MESSAGE = 'a campaign source''s id cannot change', TABLE = 'campaign_sources';
      END $$`);
    await q.query(`
      CREATE TRIGGER campaign_sources_keep_id BEFORE UPDATE OF id ON campaign_sources
        FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id) EXECUTE FUNCTION campaign_sources_keep_id()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER campaign_sources_keep_id ON campaign_sources`);
    await q.query(`DROP FUNCTION campaign_sources_keep_id()`);
    await q.query(`DROP TRIGGER campaign_sources_delete_contacts ON campaign_sources`);
    await q.query(`DROP FUNCTION campaign_sources_delete_contacts()`);
    await q.query(`DROP TRIGGER campaign_contacts_sources_on_update ON campaign_contacts`);
    await q.query(`DROP TRIGGER campaign_contacts_sources_on_insert ON campaign_contacts`);
    await q.query(`DROP FUNCTION campaign_contacts_lock_sources()`);
    await q.query(`
      ALTER TABLE campaign_contacts
        ALTER COLUMN initial_context DROP DEFAULT,
        ALTER COLUMN initial_context TYPE jsonb USING initial_context::jsonb,
        ALTER COLUMN initial_context SET DEFAULT '{}'`);
    await q.query(`
      ALTER TABLE campaign_contacts ADD CONSTRAINT campaign_contacts_source_id_fkey
        FOREIGN KEY (source_id) REFERENCES campaign_sources(id) ON DELETE CASCADE`);
  }
}
