import type { MigrationInterface, QueryRunner } from 'typeorm';
import { e164 } from '../../domain/campaigns/sources/phone-number';

/** Rows read per statement: memory stays bounded however large a table is. */
const CHUNK_ROWS = 10_000;

/** The canonical form of a stored number, or null when it is canonical already or no number libphonenumber reads. */
const changed = (stored: string | null): string | null => {
  if (stored === null) return null;
  const canonical = e164(stored);
  return canonical !== null && canonical !== stored ? canonical : null;
};

/**
 * Every phone number that is compared is stored in one form, canonical E.164 as libphonenumber-js
 * formats it (`+4402079460958` is `+442079460958`): the do-not-call list, the dials counted by the
 * frequency caps, and the numbers of runs (the one a call dials, the one an opt-out lists). A value
 * libphonenumber-js cannot read as a valid number (a withheld caller ID, a SIP address, a number
 * of a plan it does not know) is left as it is. Two entries of one organization's list that become
 * the same number are merged into the older one. Contacts and the organization's own numbers were
 * stored canonical from the start. The tables are read a chunk at a time by id.
 */
export class CanonicalPhoneNumbers1795000004600 implements MigrationInterface {
  name = 'CanonicalPhoneNumbers1795000004600';

  async up(q: QueryRunner): Promise<void> {
    await canonicalizeDoNotCall(q);
    await eachChunk<{ id: string; phone_number: string }>(q, 'dial_claims', 'phone_number', async (rows) => {
      const updates = rows.flatMap((row) => {
        const canonical = changed(row.phone_number);
        return canonical === null ? [] : [{ id: row.id, phone_number: canonical }];
      });
      if (updates.length === 0) return;
      await q.query(
        `UPDATE dial_claims c SET phone_number = x.phone_number
           FROM jsonb_to_recordset($1::jsonb) AS x(id bigint, phone_number text) WHERE c.id = x.id`,
        [JSON.stringify(updates)],
      );
    });
    await eachChunk<{ id: string; called_number: string | null; caller_number: string | null }>(
      q,
      'runs',
      'called_number, caller_number',
      async (rows) => {
        const updates = rows.flatMap((row) => {
          const called = changed(row.called_number);
          const caller = changed(row.caller_number);
          if (called === null && caller === null) return [];
          return [{ id: row.id, called: called ?? row.called_number, caller: caller ?? row.caller_number }];
        });
        if (updates.length === 0) return;
        // The runs trigger keeps each column equal to its initial_context field: both change together.
        await q.query(
          `UPDATE runs r
              SET called_number = x.called, caller_number = x.caller,
                  initial_context = r.initial_context
                    || CASE WHEN r.initial_context ? 'called_number'
                            THEN jsonb_build_object('called_number', x.called) ELSE '{}'::jsonb END
                    || CASE WHEN r.initial_context ? 'caller_number'
                            THEN jsonb_build_object('caller_number', x.caller) ELSE '{}'::jsonb END
             FROM jsonb_to_recordset($1::jsonb) AS x(id integer, called text, caller text)
            WHERE r.id = x.id`,
          [JSON.stringify(updates)],
        );
      },
    );
  }

  /** The numbers stay canonical: they are the same numbers, and every form of one was accepted before. */
  async down(): Promise<void> {}
}

async function eachChunk<Row extends { id: string }>(
  q: QueryRunner,
  table: string,
  columns: string,
  handle: (rows: Row[]) => Promise<void>,
): Promise<void> {
  let after = '0';
  for (;;) {
    const rows = (await q.query(
      `SELECT id::text AS id, ${columns} FROM ${table} WHERE id > $1::bigint ORDER BY id LIMIT ${CHUNK_ROWS}`,
      [after],
    )) as Row[];
    if (rows.length === 0) return;
    await handle(rows);
    after = rows[rows.length - 1]?.id ?? after;
  }
}

/** An entry whose canonical number the organization has listed already merges into the older of the two. */
async function canonicalizeDoNotCall(q: QueryRunner): Promise<void> {
  await eachChunk<{ id: string; organization_id: number; phone_number: string }>(
    q,
    'do_not_call_numbers',
    'organization_id, phone_number',
    async (rows) => {
      for (const row of rows) {
        const canonical = changed(row.phone_number);
        if (canonical === null) continue;
        const [listed] = (await q.query(
          `SELECT id::text AS id FROM do_not_call_numbers WHERE organization_id = $1 AND phone_number = $2`,
          [row.organization_id, canonical],
        )) as { id: string }[];
        if (listed && Number(listed.id) < Number(row.id)) {
          await q.query(`DELETE FROM do_not_call_numbers WHERE id = $1`, [row.id]);
          continue;
        }
        if (listed) await q.query(`DELETE FROM do_not_call_numbers WHERE id = $1`, [listed.id]);
        await q.query(`UPDATE do_not_call_numbers SET phone_number = $2 WHERE id = $1`, [row.id, canonical]);
      }
    },
  );
}
