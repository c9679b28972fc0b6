import request from 'supertest';
import { signUp, type SignedUp } from '../helpers/accounts';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { createCampaign } from '../helpers/campaign-api';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const server = () => services.server({ SECRETS_KEY: TEST_SECRETS_KEY });

interface StoredContact {
  row_number: number;
  phone_number: string;
  timezone: string | null;
  initial_context: Record<string, string>;
}

const uploadCsv = (caller: SignedUp, csv: string, query = '') =>
  request(server())
    .post(`/api/v1/campaign/sources${query}`)
    .auth(caller.token, { type: 'bearer' })
    .set('Content-Type', 'text/csv')
    .send(csv);

async function storedContacts(sourceId: string): Promise<StoredContact[]> {
  return services.db.dataSource.query(
    'SELECT row_number, phone_number, timezone, initial_context FROM campaign_contacts WHERE source_id = $1 ORDER BY row_number',
    [sourceId],
  );
}

let owner: SignedUp;

beforeAll(async () => {
  owner = await signUp(server());
});

describe('POST /campaign/sources with a text/csv body', () => {
  const csv = [
    '  Phone_Number ,First Name,TimeZone,Notes',
    '+14155550101,Ada,America/Los_Angeles,"likes ""quotes"", commas"',
    '+1 (415) 555-0102,Grace,,"two',
    'lines \\ and a backslash"',
    '+442071838750,Émile,Europe/London,',
    '',
  ].join('\n');

  it('answers 201 with the id, name, row count and normalized columns', async () => {
    const res = await uploadCsv(owner, csv, '?file_name=leads.csv');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      source_id: expect.stringMatching(/^src_[0-9a-f-]{36}$/),
      file_name: 'leads.csv',
      total_rows: 3,
      columns: ['phone_number', 'first name', 'timezone', 'notes'],
    });
    const [source] = await services.db.dataSource.query(
      'SELECT organization_id, file_name, total_rows, columns FROM campaign_sources WHERE id = $1',
      [res.body.source_id],
    );
    expect(source).toEqual({
      organization_id: owner.user.organization_id,
      file_name: 'leads.csv',
      total_rows: 3,
      columns: ['phone_number', 'first name', 'timezone', 'notes'],
    });
  });

  it('stores one contact per row: E.164 number, timezone, every other column as initial_context', async () => {
    const res = await uploadCsv(owner, csv);
    expect(await storedContacts(res.body.source_id)).toEqual([
      {
        row_number: 1,
        phone_number: '+14155550101',
        timezone: 'America/Los_Angeles',
        initial_context: { 'first name': 'Ada', notes: 'likes "quotes", commas' },
      },
      {
        row_number: 2,
        phone_number: '+14155550102',
        timezone: null,
        initial_context: { 'first name': 'Grace', notes: 'two\nlines \\ and a backslash' },
      },
      {
        row_number: 3,
        phone_number: '+442071838750',
        timezone: 'Europe/London',
        initial_context: { 'first name': 'Émile', notes: '' },
      },
    ]);
  });

  it('names the list contacts.csv when no file_name is given; a file of numbers alone gives empty contexts', async () => {
    const res = await uploadCsv(owner, 'phone_number\n+14155550101\n');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ file_name: 'contacts.csv', total_rows: 1, columns: ['phone_number'] });
    expect(await storedContacts(res.body.source_id)).toEqual([
      { row_number: 1, phone_number: '+14155550101', timezone: null, initial_context: {} },
    ]);
  });

  it('reads a byte order mark, CRLF line ends and blank lines; contacts without a timezone column get null', async () => {
    const res = await uploadCsv(owner, '\uFEFFphone_number,name\r\n+14155550101,Ada\r\n\r\n+14155550102,Bob\r\n,\r\n');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ total_rows: 2, columns: ['phone_number', 'name'] });
    expect(await storedContacts(res.body.source_id)).toEqual([
      { row_number: 1, phone_number: '+14155550101', timezone: null, initial_context: { name: 'Ada' } },
      { row_number: 2, phone_number: '+14155550102', timezone: null, initial_context: { name: 'Bob' } },
    ]);
  });

  it('accepts the same number in two different lists', async () => {
    const first = await uploadCsv(owner, 'phone_number\n+14155550101\n');
    const second = await uploadCsv(owner, 'phone_number\n+14155550101\n');
    expect([first.status, second.status]).toEqual([201, 201]);
  });

  it('stores a cell longer than a COPY chunk whole, multi-byte characters included', async () => {
    const long = `${'é'.repeat(40_000)}😀${'x'.repeat(30_000)}`;
    const res = await uploadCsv(
      owner,
      `phone_number,notes\n+14155550101,short\n+14155550102,${long}\n+14155550103,après\n`,
    );
    expect(res.status).toBe(201);
    expect(await storedContacts(res.body.source_id)).toEqual([
      { row_number: 1, phone_number: '+14155550101', timezone: null, initial_context: { notes: 'short' } },
      { row_number: 2, phone_number: '+14155550102', timezone: null, initial_context: { notes: long } },
      { row_number: 3, phone_number: '+14155550103', timezone: null, initial_context: { notes: 'après' } },
    ]);
  });

  it('stores a few thousand rows in order', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `+1415555${String(i).padStart(4, '0')},${i}`);
    const res = await uploadCsv(owner, ['phone_number,index', ...rows].join('\n'));
    expect(res.status).toBe(201);
    expect(res.body.total_rows).toBe(5000);
    const [last] = await services.db.dataSource.query(
      'SELECT row_number, phone_number, initial_context FROM campaign_contacts WHERE source_id = $1 ORDER BY row_number DESC LIMIT 1',
      [res.body.source_id],
    );
    expect(last).toEqual({ row_number: 5000, phone_number: '+14155554999', initial_context: { index: '4999' } });
  });
});

describe('POST /campaign/sources with a multipart form', () => {
  it("takes the 'file' field and keeps its filename", async () => {
    const res = await request(server())
      .post('/api/v1/campaign/sources')
      .auth(owner.token, { type: 'bearer' })
      .field('note', 'ignored')
      .attach('file', Buffer.from('phone_number,city\n+14155550101,Paris\n'), 'march-leads.csv');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ file_name: 'march-leads.csv', total_rows: 1, columns: ['phone_number', 'city'] });
    expect(await storedContacts(res.body.source_id)).toEqual([
      { row_number: 1, phone_number: '+14155550101', timezone: null, initial_context: { city: 'Paris' } },
    ]);
  });

  it('lets ?file_name= override the filename', async () => {
    const res = await request(server())
      .post('/api/v1/campaign/sources?file_name=renamed.csv')
      .auth(owner.token, { type: 'bearer' })
      .attach('file', Buffer.from('phone_number\n+14155550101\n'), 'original.csv');
    expect(res.status).toBe(201);
    expect(res.body.file_name).toBe('renamed.csv');
  });
});

describe('access', () => {
  it('requires credentials', async () => {
    const res = await request(server())
      .post('/api/v1/campaign/sources')
      .set('Content-Type', 'text/csv')
      .send('phone_number\n+14155550101\n');
    expect(res.status).toBe(401);
  });

  it('accepts an API key', async () => {
    const org = await callingOrganization(server());
    const res = await request(server())
      .post('/api/v1/campaign/sources')
      .set('X-API-Key', org.apiKey)
      .set('Content-Type', 'text/csv')
      .send('phone_number\n+14155550101\n');
    expect(res.status).toBe(201);
  });

  it('keeps a list to its organization: another one cannot build a campaign on it', async () => {
    const a = await callingOrganization(server());
    const b = await callingOrganization(server());
    const uploaded = await uploadCsv(a.owner, 'phone_number,first_name\n+14155550101,Ada\n');
    expect(uploaded.status).toBe(201);
    const body = (org: CallingOrganization) => ({
      name: 'Reminders',
      workflow_id: org.agent.id,
      source_type: 'csv',
      source_id: uploaded.body.source_id,
    });
    const byB = await request(server())
      .post('/api/v1/campaign/create')
      .auth(b.owner.token, { type: 'bearer' })
      .send(body(b));
    expect(byB.status).toBe(400);
    expect(byB.body).toEqual({ detail: 'source_not_found' });
    const byA = await createCampaign(server(), a.owner.token, body(a));
    expect(byA).toMatchObject({ source_id: uploaded.body.source_id, state: 'draft' });
  });

  it('is in the OpenAPI document with both content types', async () => {
    const res = await request(server()).get('/api/v1/openapi.json');
    const operation = res.body.paths['/campaign/sources'].post;
    expect(Object.keys(operation.requestBody.content).sort()).toEqual(['multipart/form-data', 'text/csv']);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '413', '415']));
  });
});
