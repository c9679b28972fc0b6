import request from 'supertest';
import { doNotCallPageQuery } from '../../domain/compliance/do-not-call';
import { signUp, type SignedUp } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';
import { waitFor } from '../helpers/wait-for';

const services = useTestServices();
const MAX_ROWS = 20;
const server = () => services.server({ DNC_IMPORT_MAX_ROWS: String(MAX_ROWS), CSV_MAX_BYTES: '65536' });
const BASE = '/api/v1/organizations/do-not-call';

let owner: SignedUp;
let other: SignedUp;

beforeAll(async () => {
  owner = await signUp(server());
  other = await signUp(server());
});

const add = (who: SignedUp, body: object) =>
  request(server()).post(BASE).auth(who.token, { type: 'bearer' }).send(body);
const list = (who: SignedUp, query = '') =>
  request(server()).get(`${BASE}${query}`).auth(who.token, { type: 'bearer' });
const importCsv = (who: SignedUp, csv: string) =>
  request(server())
    .post(`${BASE}/import`)
    .auth(who.token, { type: 'bearer' })
    .set('Content-Type', 'text/csv')
    .send(csv);
const listed = async (who: SignedUp): Promise<string[]> => {
  const res = await list(who, '?limit=100');
  return (res.body as { numbers: { phone_number: string }[] }).numbers.map((entry) => entry.phone_number).sort();
};

describe('do-not-call list', () => {
  it('lists a number in E.164, keeps the first entry of a repeat, pages and searches', async () => {
    const created = await add(owner, { phone_number: '+1 (415) 555-0101', reason: 'Asked by email' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      phone_number: '+14155550101',
      reason: 'Asked by email',
      source: 'api',
      run_id: null,
    });
    const again = await add(owner, { phone_number: '+14155550101', reason: 'Another reason' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: (created.body as { id: number }).id, reason: 'Asked by email' });

    await add(owner, { phone_number: '+442079460958' });
    const page = await list(owner, '?limit=1&page=2');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total_count: 2, page: 2, limit: 1, total_pages: 2 });
    expect((page.body as { numbers: unknown[] }).numbers).toEqual([
      expect.objectContaining({ phone_number: '+14155550101' }),
    ]);
    const search = async (text: string) =>
      ((await list(owner, `?search=${encodeURIComponent(text)}`)).body as { numbers: { phone_number: string }[] })
        .numbers;
    // Numbers by their start, country code first; reasons by their start, whatever the case.
    expect(await search('+1 (415) 555-01')).toEqual([expect.objectContaining({ phone_number: '+14155550101' })]);
    expect(await search('44 20')).toEqual([expect.objectContaining({ phone_number: '+442079460958' })]);
    expect(await search('555')).toEqual([]);
    expect(await search('asked BY')).toEqual([expect.objectContaining({ phone_number: '+14155550101' })]);
    expect(await search('email')).toEqual([]);
    expect(await search('%_')).toEqual([]);
  });

  it('stores and compares a number in its canonical form, whatever form it is sent in', async () => {
    const canonical = await add(owner, { phone_number: '+442079460959' });
    expect(canonical.status).toBe(201);
    for (const form of ['+4402079460959', '+44 (0)20 7946 0959', ' +44 20 7946 0959 ']) {
      const again = await add(owner, { phone_number: form });
      expect({ form, status: again.status, body: again.body }).toEqual({ form, status: 200, body: canonical.body });
    }
    const imported = await importCsv(owner, 'phone_number\n+4402079460959\n');
    expect(imported.body).toEqual({ total_rows: 1, imported: 0, already_listed: 1 });
  });

  it('reaches the first 10,000 entries by page, and refuses a page starting past them with 422', async () => {
    expect((await list(owner, '?page=100&limit=100')).status).toBe(200);
    const tooFar = await list(owner, '?page=101&limit=100');
    expect(tooFar.status).toBe(422);
    expect(tooFar.body).toEqual({
      detail: [expect.objectContaining({ loc: ['query', 'page'], msg: expect.stringContaining('10000') })],
    });
    expect((await list(owner, '?page=10001&limit=1')).status).toBe(422);
    expect((await list(owner, '?page=1000000')).status).toBe(422);
  });

  it('keeps organizations apart: another organization neither sees nor removes an entry', async () => {
    const created = await add(owner, { phone_number: '+14155550102' });
    const id = (created.body as { id: number }).id;
    expect(await listed(other)).toEqual([]);
    const stolen = await request(server()).delete(`${BASE}/${id}`).auth(other.token, { type: 'bearer' });
    expect(stolen.status).toBe(404);
    expect(stolen.body).toEqual({ detail: 'Do-not-call entry not found' });
    expect(await listed(owner)).toContain('+14155550102');
    // The same number may be on both lists, each organization's own.
    expect((await add(other, { phone_number: '+14155550102' })).status).toBe(201);

    const removed = await request(server()).delete(`${BASE}/${id}`).auth(owner.token, { type: 'bearer' });
    expect(removed.status).toBe(200);
    expect(await listed(owner)).not.toContain('+14155550102');
    expect(await listed(other)).toContain('+14155550102');
  });

  it('refuses invalid numbers, oversized reasons and searches with 422', async () => {
    const badNumber = await add(owner, { phone_number: '4155550103' });
    expect(badNumber.status).toBe(422);
    expect(JSON.stringify(badNumber.body)).toContain('phone_number');
    const longReason = await add(owner, { phone_number: '+14155550103', reason: 'x'.repeat(256) });
    expect(longReason.status).toBe(422);
    expect(longReason.body).toEqual({
      detail: [expect.objectContaining({ loc: ['body', 'reason'], msg: 'at most 255 characters' })],
    });
    const hugeNumber = await add(owner, { phone_number: `+1${'5'.repeat(10_000)}` });
    expect(hugeNumber.status).toBe(422);
    expect((await list(owner, `?search=${'9'.repeat(65)}`)).status).toBe(422);
    expect(await listed(owner)).not.toContain('+14155550103');
  });
});

describe('do-not-call import', () => {
  it('lists every number of a CSV, normalized, and counts those listed already', async () => {
    const res = await importCsv(
      other,
      'Phone_Number,reason,crm_id\n+1 415 555 0201,Complaint,7\n+14155550202,,8\n+14155550201,repeat,9\n+14155550102,,10\n',
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ total_rows: 4, imported: 2, already_listed: 2 });
    const numbers = (await list(other, '?limit=100')).body as { numbers: { phone_number: string; source: string }[] };
    expect(
      numbers.numbers
        .filter((entry) => entry.source === 'import')
        .map((entry) => entry.phone_number)
        .sort(),
    ).toEqual(['+14155550201', '+14155550202']);
  });

  it('refuses a file with bad rows, naming them, and stores nothing', async () => {
    const before = await listed(owner);
    const rows = ['phone_number,reason', '+14155550301,ok', 'not a number,', '+14155550302,' + 'y'.repeat(300), '123,'];
    const res = await importCsv(owner, rows.join('\n'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail:
        "Invalid phone numbers in 2 rows: 2, 4: use '+', the country code and the number, e.g. +14155550100. " +
        'Reasons longer than 255 characters (or containing NUL) in row 3.',
    });
    expect(await listed(owner)).toEqual(before);
  });

  it('refuses files without the phone_number column, without rows, malformed, or over the row limit', async () => {
    const before = await listed(owner);
    expect((await importCsv(owner, 'number,reason\n+14155550401,x\n')).body).toEqual({
      detail: "The CSV must have a 'phone_number' column",
    });
    expect((await importCsv(owner, 'phone_number\n')).body).toEqual({
      detail: 'CSV file must have a header row and at least one data row',
    });
    const ragged = await importCsv(owner, 'phone_number,reason\n+14155550402,a,b\n');
    expect(ragged.status).toBe(400);
    expect((ragged.body as { detail: string }).detail).toMatch(/^Malformed CSV at row 1 \(line 2\)/);

    const tooMany = [
      'phone_number',
      ...Array.from({ length: MAX_ROWS + 1 }, (_, i) => `+1415555${String(500 + i).padStart(4, '0')}`),
    ];
    const res = await importCsv(owner, tooMany.join('\n'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: `The file has more than ${MAX_ROWS} rows (DNC_IMPORT_MAX_ROWS); split it and import each part`,
    });
    const large = await importCsv(owner, `phone_number\n${'+14155550600\n'.repeat(6000)}`);
    expect(large.status).toBe(413);
    expect(await listed(owner)).toEqual(before);
  });
});

describe('a long list', () => {
  let big: SignedUp;
  const ENTRIES = 50_000;

  beforeAll(async () => {
    big = await signUp(server());
    await services.db.dataSource.query(
      `INSERT INTO do_not_call_numbers (organization_id, phone_number, reason, source)
       SELECT $1, '+1' || (2000000000 + i)::text, 'Batch ' || (i % 100)::text, 'import' FROM generate_series(1, $2) AS i`,
      [big.user.organization_id, ENTRIES],
    );
    await services.db.dataSource.query(
      `INSERT INTO do_not_call_numbers (organization_id, phone_number, reason, source)
       SELECT $1, '+1300000000' || i::text, 'Rare complaint', 'api' FROM generate_series(1, 3) AS i`,
      [big.user.organization_id],
    );
    await services.db.dataSource.query('ANALYZE do_not_call_numbers');
  });

  /** The plans PostgreSQL picks for the two statements of a list request: the page, and the count. */
  const plans = async (search: string): Promise<{ page: string; count: string }> => {
    const explain = async ([sql, parameters]: [string, unknown[]]) =>
      (await services.db.dataSource.query<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${sql}`, parameters))
        .map((row) => row['QUERY PLAN'])
        .join('\n');
    const query = () =>
      doNotCallPageQuery(services.db.dataSource, big.user.organization_id, { page: 1, limit: 50, search });
    return {
      page: await explain(query().getQueryAndParameters()),
      count: await explain(
        query()
          .select('COUNT(DISTINCT(d.id))', 'cnt')
          .orderBy()
          .skip(undefined)
          .take(undefined)
          .getQueryAndParameters(),
      ),
    };
  };

  it('searches by the start of a number or a reason on an index range, never scanning the list', async () => {
    const byNumber = await plans('+1 200 000 12');
    for (const plan of [byNumber.page, byNumber.count]) {
      expect(plan).toContain('do_not_call_numbers_number_prefix_idx');
      expect(plan).not.toContain('Seq Scan');
    }
    // A common reason may be found soonest by walking the newest entries; a rare one, or the count, by the index.
    const byCommonReason = await plans('batch 42');
    expect(byCommonReason.count).toContain('do_not_call_numbers_reason_prefix_idx');
    const byRareReason = await plans('RARE');
    for (const plan of [byRareReason.page, byRareReason.count]) {
      expect(plan).toContain('do_not_call_numbers_reason_prefix_idx');
      expect(plan).not.toContain('Seq Scan');
    }

    const found = await list(big, `?search=${encodeURIComponent('+1 200 000 12')}&limit=100`);
    // +12000001200 to +12000001299.
    expect((found.body as { total_count: number }).total_count).toBe(100);
    const reasons = await list(big, '?search=batch%2042&limit=1');
    expect((reasons.body as { total_count: number }).total_count).toBe(ENTRIES / 100);
  });
});

describe('quota', () => {
  it('refuses an entry or an import past QUOTA_DO_NOT_CALL_NUMBERS with 409, storing none of the import', async () => {
    const limited = () => services.server({ QUOTA_DO_NOT_CALL_NUMBERS: '3' });
    const who = await signUp(limited());
    const post = (phoneNumber: string) =>
      request(limited()).post(BASE).auth(who.token, { type: 'bearer' }).send({ phone_number: phoneNumber });
    const postCsv = (csv: string) =>
      request(limited())
        .post(`${BASE}/import`)
        .auth(who.token, { type: 'bearer' })
        .set('Content-Type', 'text/csv')
        .send(csv);
    expect((await post('+14155550701')).status).toBe(201);
    expect((await postCsv('phone_number\n+14155550702\n+14155550703\n+14155550704\n')).status).toBe(409);
    expect(await listed(who)).toEqual(['+14155550701']);
    expect((await postCsv('phone_number\n+14155550702\n+14155550703\n')).status).toBe(200);
    const over = await post('+14155550705');
    expect(over.status).toBe(409);
    expect(over.body).toEqual({
      detail:
        'Quota exceeded: an organization may have at most 3 numbers on its do-not-call list ' +
        '(do_not_call_numbers, QUOTA_DO_NOT_CALL_NUMBERS)',
    });
    // A number listed already, in any form, is no new entry.
    expect((await post('+1 415 555 0701')).status).toBe(200);
    expect((await postCsv('phone_number\n+14155550703\n')).status).toBe(200);
    expect(await listed(who)).toEqual(['+14155550701', '+14155550702', '+14155550703']);
  });
});

describe('imports share one slot pool with contact lists', () => {
  it('a do-not-call import waits while a contact list holds the only slot', async () => {
    const app = services.server({ CSV_MAX_CONCURRENT_IMPORTS: '1' });
    const who = await signUp(app);
    const blocker = services.db.dataSource.createQueryRunner();
    await blocker.connect();
    try {
      // The contact list's first write waits on this lock, holding its import slot meanwhile.
      await blocker.startTransaction();
      await blocker.query('LOCK TABLE campaign_sources IN SHARE MODE');
      const contacts = request(app)
        .post('/api/v1/campaign/sources')
        .auth(who.token, { type: 'bearer' })
        .set('Content-Type', 'text/csv')
        .send('phone_number\n+14155550801\n')
        .then((res) => res);
      await waitFor('the contact list to wait on the lock', async () => {
        const [row] = await services.db.dataSource.query<{ waiting: number }[]>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO campaign_sources%'`,
        );
        return (row?.waiting ?? 0) > 0;
      });
      let doNotCallDone = false;
      const doNotCall = request(app)
        .post(`${BASE}/import`)
        .auth(who.token, { type: 'bearer' })
        .set('Content-Type', 'text/csv')
        .send('phone_number\n+14155550802\n')
        .then((res) => {
          doNotCallDone = true;
          return res;
        });
      // Alone, an import of one row answers in milliseconds; here it must still be waiting.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(doNotCallDone).toBe(false);
      expect(await listed(who)).toEqual([]);
      await blocker.commitTransaction();
      expect((await contacts).status).toBe(201);
      expect((await doNotCall).body).toEqual({ total_rows: 1, imported: 1, already_listed: 0 });
    } finally {
      if (blocker.isTransactionActive) await blocker.rollbackTransaction();
      await blocker.release();
    }
  });
});
