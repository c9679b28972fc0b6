import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';

const services = useTestServices();
/** A small limit, so 413s need only a few kilobytes. */
const CSV_MAX_BYTES = 4096;
const server = () => services.server({ CSV_MAX_BYTES: String(CSV_MAX_BYTES) });

let owner: SignedUp;

beforeAll(async () => {
  owner = await signUp(server());
});

afterEach(async () => {
  // Every case here is a refused upload: none may leave a list or a contact behind.
  const [stored] = await services.db.dataSource.query(
    `SELECT (SELECT count(*) FROM campaign_sources WHERE organization_id = $1)::int AS sources,
            (SELECT count(*) FROM campaign_contacts)::int AS contacts`,
    [owner.user.organization_id],
  );
  expect(stored).toEqual({ sources: 0, contacts: 0 });
});

const uploadCsv = (csv: string | Buffer, app: TestServer = server()) =>
  request(app)
    .post('/api/v1/campaign/sources')
    .auth(owner.token, { type: 'bearer' })
    .set('Content-Type', 'text/csv')
    .send(csv);

/** `phone_number,name` rows: valid distinct numbers, except where `cell` gives another phone cell. */
function csvWith(rows: number, cell: (row: number) => string | undefined = () => undefined): string {
  const lines = ['phone_number,name'];
  for (let row = 1; row <= rows; row += 1) {
    lines.push(`${cell(row) ?? `+1415555${String(row).padStart(4, '0')}`},name ${row}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('POST /campaign/sources refuses (400)', () => {
  it.each([
    ['an empty body', ''],
    ['a header without data rows', 'phone_number,name\n'],
    ['only blank lines after the header', 'phone_number,name\n\n,\n'],
  ])('%s', async (_case, csv) => {
    const res = await uploadCsv(csv);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'CSV file must have a header row and at least one data row' });
  });

  it('a file without a phone_number column', async () => {
    const res = await uploadCsv('phone,name\n+14155550101,Ada\n');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "Source must contain a 'phone_number' column" });
  });

  it('repeated or empty column names', async () => {
    const repeated = await uploadCsv('phone_number,Name, name \n+14155550101,Ada,Ada\n');
    expect(repeated.status).toBe(400);
    expect(repeated.body.detail).toBe("CSV header repeats column names after trimming and lower-casing: 'name'");
    const empty = await uploadCsv('phone_number,,city\n+14155550101,Ada,Paris\n');
    expect(empty.status).toBe(400);
    expect(empty.body.detail).toBe('CSV header has empty column names (columns 2)');
  });

  it('invalid numbers: lists the first 10 rows and the total count', async () => {
    const bad: Record<number, string> = {
      2: '14155550102', // no '+': not guessed
      5: '+1415555',
      7: 'call me',
      8: '',
      9: '+14155550109 ext. 12',
      10: '+999123456',
      12: '+1 415 555 01x2',
      13: '+0014155550113',
      15: '++14155550115',
      16: '+1-800-FLOWERS',
      18: '0044 20 7183 8750',
      20: '+44',
    };
    const res = await uploadCsv(csvWith(25, (row) => bad[row]));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail:
        'Invalid phone numbers in 12 rows: 2, 5, 7, 8, 9, 10, 12, 13, 15, 16 and 2 more. ' +
        "Phone numbers must be E.164: '+', the country code and the number, e.g. +14155550100.",
    });
  });

  it('one invalid number at the very end of a longer file', async () => {
    const roomy = services.server({ CSV_MAX_BYTES: String(1024 * 1024) });
    const res = await uploadCsv(
      csvWith(3000, (row) => (row === 3000 ? '+1' : undefined)),
      roomy,
    );
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^Invalid phone numbers in row 3000\. /);
  });

  it('duplicates, compared after normalization: names the rows that repeat an earlier number', async () => {
    const repeats: Record<number, string> = {
      4: '+14155550001',
      6: '+1 (415) 555-0001',
      9: '+1.415.555.0002',
    };
    const res = await uploadCsv(csvWith(12, (row) => repeats[row]));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail:
        'Duplicate phone numbers found in 3 rows: 4, 6, 9. ' +
        'Each repeats the number of an earlier row; phone numbers in a contact list must be unique.',
    });
  });

  it('a duplicate far from the number it repeats, at the end of a longer file', async () => {
    const roomy = services.server({ CSV_MAX_BYTES: String(1024 * 1024) });
    const res = await uploadCsv(
      csvWith(3000, (row) => (row === 3000 ? '+1 415 555 0002' : undefined)),
      roomy,
    );
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^Duplicate phone numbers found in row 3000\. /);
  });

  it('many duplicates: the first 10 rows and the count', async () => {
    const res = await uploadCsv(csvWith(40, (row) => (row > 20 ? '+14155550001' : undefined)));
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(
      /^Duplicate phone numbers found in 20 rows: 21, 22, 23, 24, 25, 26, 27, 28, 29, 30 and 10 more\. /,
    );
  });

  it('timezones that are not IANA names', async () => {
    const csv = [
      'phone_number,timezone',
      '+14155550101,America/New_York',
      '+14155550102,Mars/Olympus_Mons',
      '+14155550103,',
      '+14155550104,EST5EDT-ish',
      '+14155550105,Europe/Paris',
    ].join('\n');
    const res = await uploadCsv(csv);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail:
        'Invalid timezones in 2 rows: 2, 4. Use IANA timezone names such as America/New_York, or leave the cell empty.',
    });
  });

  it('both invalid numbers and timezones, in one answer', async () => {
    const res = await uploadCsv('phone_number,timezone\n+14155550101,Nowhere\n4155550102,UTC\n');
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^Invalid phone numbers in row 2\. .* Invalid timezones in row 1\. /);
  });

  it('a ragged row after blank lines, naming its data row and its line', async () => {
    const res = await uploadCsv('phone_number,name\n\n+14155550101,Ada\n,\n+14155550102\n');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Malformed CSV at row 2 (line 5): it has 1 fields, the header has 2' });
  });

  it('a ragged row, naming it', async () => {
    const res = await uploadCsv('phone_number,name\n+14155550101,Ada\n+14155550102,Bob,extra\n+14155550103,Cy\n');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Malformed CSV at row 2 (line 3): it has 3 fields, the header has 2' });
  });

  it('an unclosed quote', async () => {
    const res = await uploadCsv('phone_number,name\n+14155550101,Ada\n+14155550102,"Bob\n');
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^Malformed CSV at row 2 \(line 3\): Quote Not Closed/);
  });

  it('NUL characters', async () => {
    const res = await uploadCsv('phone_number,name\n+14155550101,A\u0000da\n');
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('NUL characters in row 1. The file must be text.');
  });

  it("a multipart form without a 'file' field", async () => {
    const res = await request(server())
      .post('/api/v1/campaign/sources')
      .auth(owner.token, { type: 'bearer' })
      .attach('contacts', Buffer.from('phone_number\n+14155550101\n'), 'contacts.csv');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "multipart/form-data body has no 'file' file field" });
  });
});

describe('POST /campaign/sources other refusals', () => {
  it('answers 415 for a body that is neither text/csv nor multipart', async () => {
    const res = await request(server())
      .post('/api/v1/campaign/sources')
      .auth(owner.token, { type: 'bearer' })
      .send({ phone_number: '+14155550101' });
    expect(res.status).toBe(415);
    expect(res.body.detail).toMatch(/Content-Type text\/csv/);
  });

  it('answers 422 for a file_name over 255 characters', async () => {
    const res = await request(server())
      .post(`/api/v1/campaign/sources?file_name=${'x'.repeat(256)}`)
      .auth(owner.token, { type: 'bearer' })
      .set('Content-Type', 'text/csv')
      .send('phone_number\n+14155550101\n');
    expect(res.status).toBe(422);
  });
});

describe('POST /campaign/sources over CSV_MAX_BYTES (413)', () => {
  const tooBig = csvWith(400);
  const detail = `CSV file is larger than the limit of ${CSV_MAX_BYTES} bytes (CSV_MAX_BYTES)`;

  it('refuses a declared Content-Length over the limit before reading', async () => {
    expect(Buffer.byteLength(tooBig)).toBeGreaterThan(CSV_MAX_BYTES);
    const res = await uploadCsv(tooBig);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail });
  });

  it('accepts a file just under the limit', async () => {
    const lines = ['phone_number'];
    let row = 0;
    while ((lines.join('\n').length + 14) * 1 < CSV_MAX_BYTES - 20) {
      row += 1;
      lines.push(`+1415555${String(row).padStart(4, '0')}`);
    }
    const res = await uploadCsv(lines.join('\n'));
    expect(res.status).toBe(201);
    // The afterEach check is for refused uploads: remove this one.
    await services.db.dataSource.query('DELETE FROM campaign_sources WHERE id = $1', [res.body.source_id]);
  });

  it('counts the bytes of a chunked body without Content-Length', async () => {
    const listening = await listen();
    try {
      const res = await streamUpload(listening, tooBig, 256);
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toEqual({ detail });
    } finally {
      listening.close();
    }
  });

  it('stops midway through the COPY, after rows were already sent to PostgreSQL', async () => {
    const limit = 150_000;
    // 9,000 rows are about 230 kB: several COPY chunks go out before the limit is reached.
    const listening = await listen({ CSV_MAX_BYTES: String(limit) });
    try {
      const res = await streamUpload(listening, csvWith(9000), 8192);
      expect(res.status).toBe(413);
      expect(JSON.parse(res.body)).toEqual({
        detail: `CSV file is larger than the limit of ${limit} bytes (CSV_MAX_BYTES)`,
      });
    } finally {
      listening.close();
    }
  });

  it('refuses a multipart file over the limit', async () => {
    const res = await request(server())
      .post('/api/v1/campaign/sources')
      .auth(owner.token, { type: 'bearer' })
      .attach('file', Buffer.from(tooBig), 'big.csv');
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail });
  });
});

describe('a client that goes away midway', () => {
  it('leaves nothing behind and the connection pool usable', async () => {
    const listening = await listen();
    try {
      const port = (listening.address() as AddressInfo).port;
      const req = httpRequest({
        port,
        method: 'POST',
        path: '/api/v1/campaign/sources',
        headers: { Authorization: `Bearer ${owner.token}`, 'Content-Type': 'text/csv' },
      });
      req.on('error', () => {
        // The socket is destroyed on purpose.
      });
      req.write(csvWith(100));
      await new Promise((resolve) => setTimeout(resolve, 300));
      req.destroy();
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The pool still answers (no connection is stuck inside the aborted COPY).
      const after = await uploadCsv('phone_number\n+14155550101\n', listening);
      expect(after.status).toBe(201);
      await services.db.dataSource.query('DELETE FROM campaign_sources WHERE id = $1', [after.body.source_id]);
    } finally {
      listening.close();
    }
  });
});

async function listen(env?: Record<string, string>): Promise<Server> {
  const app = env ? services.server(env) : server();
  const listening = createServer((req, res) => void app(req, res));
  listening.listen(0, '127.0.0.1');
  await once(listening, 'listening');
  return listening;
}

/** Sends `csv` chunked (no Content-Length), `chunkSize` characters at a time, until the server answers. */
async function streamUpload(
  listening: Server,
  csv: string,
  chunkSize: number,
): Promise<{ status: number; body: string }> {
  const port = (listening.address() as AddressInfo).port;
  const req = httpRequest({
    port,
    method: 'POST',
    path: '/api/v1/campaign/sources',
    headers: { Authorization: `Bearer ${owner.token}`, 'Content-Type': 'text/csv', 'Transfer-Encoding': 'chunked' },
  });
  req.on('error', () => {
    // The server may close the connection while chunks are still being written.
  });
  const answered = once(req, 'response') as Promise<[IncomingMessage]>;
  let responded = false;
  void answered.then(() => {
    responded = true;
  });
  for (let offset = 0; offset < csv.length && !responded; offset += chunkSize) {
    req.write(csv.slice(offset, offset + chunkSize));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  if (!responded) req.end();
  const [res] = await answered;
  let body = '';
  for await (const chunk of res) body += String(chunk);
  return { status: res.statusCode ?? 0, body };
}
