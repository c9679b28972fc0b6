import { ContactSourceStatementChecks1795000001300 } from '../../entities/migrations/1795000001300-ContactSourceStatementChecks';
import { createCampaignActivities } from '../../activities/campaign.activities';
import { Secrets } from '../../telephony/secrets';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

let db: TestDatabase;
let organizationId: number;
let sequence = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  const [organization] = await db.dataSource.query<{ id: number }[]>(
    `INSERT INTO organizations (name) VALUES ('contacts') RETURNING id`,
  );
  organizationId = organization!.id;
});

afterAll(async () => {
  await db.drop();
});

const query = <T>(sql: string, parameters: unknown[] = []) => db.dataSource.query<T>(sql, parameters);

async function newSource(): Promise<string> {
  sequence += 1;
  const id = `src_checks_${sequence}`;
  await query(
    `INSERT INTO campaign_sources (id, organization_id, file_name, total_rows, columns) VALUES ($1, $2, 'a.csv', 0, '[]')`,
    [id, organizationId],
  );
  return id;
}

/** Rows `first`..`first + count - 1` of a list, in one statement. */
const addContacts = (sourceId: string, count: number, first = 1) =>
  query(
    `INSERT INTO campaign_contacts (source_id, row_number, phone_number, initial_context)
     SELECT $1, n, '+1415555' || lpad(n::text, 4, '0'), json_build_object('n', n)
       FROM generate_series($3::int, $3::int + $2::int - 1) AS n`,
    [sourceId, count, first],
  );

/** Two lists written between each other: `list` rows 1-3, `other` 1-4, `list` 4-5, `other` 5. */
async function interleavedLists(): Promise<{ list: string; other: string }> {
  const list = await newSource();
  const other = await newSource();
  await addContacts(list, 3);
  await addContacts(other, 4);
  await addContacts(list, 2, 4);
  await addContacts(other, 1, 5);
  return { list, other };
}

const contactCount = async (sourceId: string): Promise<number> => {
  const [row] = await query<{ count: number }[]>(
    'SELECT count(*)::int AS count FROM campaign_contacts WHERE source_id = $1',
    [sourceId],
  );
  return row!.count;
};

describe("campaign contacts' checks on their source", () => {
  it("stores contacts of an existing source, with their context as written, and records the source's id range", async () => {
    const { list: source } = await interleavedLists();
    const rows = await query<{ id: string; row_number: number; initial_context: unknown }[]>(
      'SELECT id, row_number, initial_context FROM campaign_contacts WHERE source_id = $1 ORDER BY row_number',
      [source],
    );
    expect(rows.map(({ row_number, initial_context }) => ({ row_number, initial_context }))).toEqual([
      { row_number: 1, initial_context: { n: 1 } },
      { row_number: 2, initial_context: { n: 2 } },
      { row_number: 3, initial_context: { n: 3 } },
      { row_number: 4, initial_context: { n: 4 } },
      { row_number: 5, initial_context: { n: 5 } },
    ]);
    // The range covers every contact of the list, and the other list's contacts written between.
    const [range] = await query<{ first_contact_id: string; last_contact_id: string }[]>(
      'SELECT first_contact_id, last_contact_id FROM campaign_sources WHERE id = $1',
      [source],
    );
    const ids = rows.map((row) => Number(row.id));
    expect(Number(range!.first_contact_id)).toBe(Math.min(...ids));
    expect(Number(range!.last_contact_id)).toBe(Math.max(...ids));
    expect(Number(range!.last_contact_id) - Number(range!.first_contact_id)).toBe(8);
  });

  it('refuses contacts of a source that does not exist, and stores none of the statement', async () => {
    const source = await newSource();
    await expect(
      query(
        `INSERT INTO campaign_contacts (source_id, row_number, phone_number)
         VALUES ($1, 1, '+14155550100'), ('src_missing', 1, '+14155550101')`,
        [source],
      ),
    ).rejects.toMatchObject({ code: '23503', message: expect.stringContaining('does not exist') });
    expect(await contactCount(source)).toBe(0);
  });

  it('refuses moving contacts to a source that does not exist, and widens the range of one that does', async () => {
    const source = await newSource();
    const target = await newSource();
    await addContacts(source, 2);
    await expect(
      query(`UPDATE campaign_contacts SET source_id = 'src_missing' WHERE source_id = $1`, [source]),
    ).rejects.toMatchObject({ code: '23503' });
    expect(await contactCount(source)).toBe(2);

    await query(`UPDATE campaign_contacts SET source_id = $2 WHERE source_id = $1`, [source, target]);
    await query('DELETE FROM campaign_sources WHERE id = $1', [target]);
    expect(await contactCount(target)).toBe(0);
  });

  it('deletes the contacts with their source, alone or with the organization', async () => {
    const kept = await newSource();
    const deleted = await newSource();
    await addContacts(kept, 2);
    await addContacts(deleted, 5);
    await query('DELETE FROM campaign_sources WHERE id = $1', [deleted]);
    expect(await contactCount(deleted)).toBe(0);
    expect(await contactCount(kept)).toBe(2);

    const [other] = await query<{ id: number }[]>(`INSERT INTO organizations (name) VALUES ('gone') RETURNING id`);
    const orphaned = `src_checks_org_${other!.id}`;
    await query(
      `INSERT INTO campaign_sources (id, organization_id, file_name, total_rows, columns) VALUES ($1, $2, 'b.csv', 0, '[]')`,
      [orphaned, other!.id],
    );
    await addContacts(orphaned, 4);
    await query('DELETE FROM organizations WHERE id = $1', [other!.id]);
    expect(await contactCount(orphaned)).toBe(0);
  });

  it("never changes a source's id", async () => {
    const source = await newSource();
    await addContacts(source, 1);
    await expect(query(`UPDATE campaign_sources SET id = 'src_renamed' WHERE id = $1`, [source])).rejects.toMatchObject(
      { code: '23503' },
    );
    await query(`UPDATE campaign_sources SET total_rows = 1 WHERE id = $1`, [source]);
  });

  it('holds a source deleted by another transaction until the contacts are written, then refuses them', async () => {
    const source = await newSource();
    const deleting = db.dataSource.createQueryRunner();
    const writing = db.dataSource.createQueryRunner();
    try {
      await deleting.startTransaction();
      await deleting.query('DELETE FROM campaign_sources WHERE id = $1', [source]);
      await writing.startTransaction();
      // Waits on the deleting transaction's row lock, then finds the source gone.
      const write = writing.query(
        `INSERT INTO campaign_contacts (source_id, row_number, phone_number) VALUES ($1, 1, '+14155550100')`,
        [source],
      );
      const refused = expect(write).rejects.toMatchObject({ code: '23503' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await deleting.commitTransaction();
      await refused;
      await writing.rollbackTransaction();
    } finally {
      await deleting.release();
      await writing.release();
    }
    expect(await contactCount(source)).toBe(0);
  });

  it('keeps a deletion waiting until contacts written meanwhile are committed, then deletes them too', async () => {
    const source = await newSource();
    const writing = db.dataSource.createQueryRunner();
    try {
      await writing.startTransaction();
      await writing.query(
        `INSERT INTO campaign_contacts (source_id, row_number, phone_number) VALUES ($1, 1, '+14155550100')`,
        [source],
      );
      const deletion = query('DELETE FROM campaign_sources WHERE id = $1', [source]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await writing.commitTransaction();
      await deletion;
    } finally {
      await writing.release();
    }
    expect(await contactCount(source)).toBe(0);
  });
});

describe("a campaign's contacts", () => {
  it('are read page by page in id order, only its own list, when lists were written between', async () => {
    const { list } = await interleavedLists();
    const [agent] = await query<{ id: number }[]>(
      `INSERT INTO agents (organization_id, workflow_uuid, name) VALUES ($1, gen_random_uuid(), 'agent') RETURNING id`,
      [organizationId],
    );
    const [campaign] = await query<{ id: number }[]>(
      `INSERT INTO campaigns (organization_id, name, workflow_id, source_id, retry_config, circuit_breaker)
       VALUES ($1, 'paging', $2, $3, '{}', '{}') RETURNING id`,
      [organizationId, agent!.id, list],
    );
    const activities = createCampaignActivities({
      dataSource: db.dataSource,
      secrets: new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex')),
      settings: {},
    });

    const pages: string[][] = [];
    let after = '0';
    for (;;) {
      const page = await activities.fetchCampaignContacts({ campaignId: campaign!.id, after, limit: 2 });
      if (page.length === 0) break;
      pages.push(page.map((contact) => contact.contactId));
      after = page[page.length - 1]!.contactId;
    }
    const expected = await query<{ id: string }[]>(
      'SELECT id FROM campaign_contacts WHERE source_id = $1 ORDER BY id',
      [list],
    );
    expect(pages.flat()).toEqual(expected.map((row) => String(row.id)));
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
  });
});

it('ContactSourceStatementChecks migration is reversible', async () => {
  const migration = new ContactSourceStatementChecks1795000001300();
  const runner = db.dataSource.createQueryRunner();
  const columnType = async () => {
    const [row] = await query<{ data_type: string }[]>(
      `SELECT data_type FROM information_schema.columns
        WHERE table_name = 'campaign_contacts' AND column_name = 'initial_context'`,
    );
    return row?.data_type;
  };
  const source = await newSource();
  await addContacts(source, 3);
  const range = () =>
    query<{ first_contact_id: string; last_contact_id: string }[]>(
      'SELECT first_contact_id, last_contact_id FROM campaign_sources WHERE id = $1',
      [source],
    );
  const before = await range();
  try {
    await migration.down(runner);
    expect(await columnType()).toBe('jsonb');
    await expect(
      query(`INSERT INTO campaign_contacts (source_id, row_number, phone_number) VALUES ('src_missing', 1, '+1')`),
    ).rejects.toMatchObject({ code: '23503' });
    await expect(
      query(`INSERT INTO campaign_contacts (source_id, row_number, phone_number) VALUES ($1, 1, '+1')`, [source]),
    ).rejects.toMatchObject({ code: '23505' });
    await migration.up(runner);
    expect(await columnType()).toBe('json');
    // The ranges of existing lists are filled in from their contacts.
    expect(await range()).toEqual(before);
  } finally {
    await runner.release();
  }
});
