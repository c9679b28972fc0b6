import request from 'supertest';
import { signUp, type SignedUp } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';

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
    const byDigits = await list(owner, '?search=555-01');
    expect((byDigits.body as { total_count: number }).total_count).toBe(1);
    const byReason = await list(owner, '?search=EMAIL');
    expect((byReason.body as { numbers: { phone_number: string }[] }).numbers[0]?.phone_number).toBe('+14155550101');
    const wildcard = await list(owner, `?search=${encodeURIComponent('%_')}`);
    expect((wildcard.body as { total_count: number }).total_count).toBe(0);
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
