import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contacts are written a whole file at a time (one COPY of up to millions of rows). Per row, the
 * foreign key to `campaign_sources` looked the source up and the `(source_id, row_number)` unique
 * index took an insert of its own: together three quarters of PostgreSQL's work in an upload.
 * - The source rules now run once per statement, over the statement's rows: a write of contacts
 *   claims their sources (a row lock, as the foreign key took one) and fails with
 *   `foreign_key_violation` when one does not exist, so a source deleted meanwhile is noticed;
 *   deleting a source deletes its contacts (the old `ON DELETE CASCADE`); a source's id never
 *   changes (nothing updates it; the foreign key refused it while referenced).
 * - Each source records the range of contact ids its contacts were given
 *   (`first_contact_id`..`last_contact_id`), kept by the same statement trigger. A list's contacts
 *   are then read through the primary key: a range scan filtered on `source_id` (contacts of lists
 *   written at the same time may interleave in the range). Row numbers stay unique within a list
 *   because they are assigned once, in file order, and a redial copies distinct contacts.
 * - `initial_context` becomes `json`: it is stored once and read back whole, never queried inside,
 *   and `json` keeps the text as written instead of building `jsonb`.
 */
export class ContactSourceStatementChecks1795000001300 implements MigrationInterface {
  name = 'ContactSourceStatementChecks1795000001300';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE campaign_contacts
        DROP CONSTRAINT campaign_contacts_source_id_fkey,
        DROP CONSTRAINT campaign_contacts_source_id_row_number_key,
        ALTER COLUMN initial_context DROP DEFAULT,
        ALTER COLUMN initial_context TYPE json USING initial_context::json,
        ALTER COLUMN initial_context SET DEFAULT '{}'`);
    await q.query(`ALTER TABLE campaign_sources ADD COLUMN first_contact_id bigint, ADD COLUMN last_contact_id bigint`);
    await q.query(`
      UPDATE campaign_sources s SET first_contact_id = r.first_id, last_contact_id = r.last_id
        FROM (SELECT source_id, min(id) AS first_id, max(id) AS last_id FROM campaign_contacts GROUP BY source_id) r
       WHERE s.id = r.source_id`);

    await q.query(`
      CREATE FUNCTION campaign_contacts_claim_sources() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        written_sources bigint;
        claimed_sources bigint;
      BEGIN
        WITH ranges AS (
               SELECT source_id, min(id) AS first_id, max(id) AS last_id FROM written GROUP BY source_id),
             claimed AS (
               UPDATE campaign_sources s
                  SET first_contact_id = least(s.first_contact_id, r.first_id),
                      last_contact_id = greatest(s.last_contact_id, r.last_id)
                 FROM ranges r
                WHERE s.id = r.source_id
               RETURNING 1)
        SELECT (SELECT count(*) FROM ranges), (SELECT count(*) FROM claimed) INTO written_sources, claimed_sources;
        IF claimed_sources < written_sources THEN
          RAISE foreign_key_violation USING
            MESSAGE = 'campaign_contacts.source_id refers to a campaign source that does not exist',
            TABLE = 'campaign_contacts';
        END IF;
        RETURN NULL;
      END $$`);
    // A trigger with transition tables takes one event only: one for inserts, one for updates.
    for (const event of ['insert', 'update']) {
      await q.query(`
        CREATE TRIGGER campaign_contacts_claim_sources_on_${event} AFTER ${event.toUpperCase()} ON campaign_contacts
          REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION campaign_contacts_claim_sources()`);
    }

    await q.query(`
      CREATE FUNCTION campaign_sources_delete_contacts() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM campaign_contacts c USING removed r
         WHERE c.id BETWEEN r.first_contact_id AND r.last_contact_id AND c.source_id = r.id;
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
    // CASCADE: each function's triggers go with it.
    await q.query(`
      DROP FUNCTION campaign_sources_keep_id(), campaign_sources_delete_contacts(), campaign_contacts_claim_sources()
        CASCADE`);
    await q.query(`ALTER TABLE campaign_sources DROP COLUMN first_contact_id, DROP COLUMN last_contact_id`);
    await q.query(`
      ALTER TABLE campaign_contacts
        ALTER COLUMN initial_context DROP DEFAULT,
        ALTER COLUMN initial_context TYPE jsonb USING initial_context::jsonb,
        ALTER COLUMN initial_context SET DEFAULT '{}',
        ADD CONSTRAINT campaign_contacts_source_id_row_number_key UNIQUE (source_id, row_number),
        ADD CONSTRAINT campaign_contacts_source_id_fkey
          FOREIGN KEY (source_id) REFERENCES campaign_sources(id) ON DELETE CASCADE`);
  }
}
