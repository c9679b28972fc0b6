import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../entities/data-source';
import { buildTestApp } from '../helpers/app';
import { signUp, type SignedUp } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

const POOL_SIZE = 5;
const DRIPPING_UPLOADS = 10;
const MIN_RATE = 100;

let pool: DataSource;
let http: Server;
let base: string;
let owner: SignedUp;

beforeAll(async () => {
  // The API's own pool settings, over fewer connections than there are slow uploads.
  pool = createDataSource({
    url: services.db.url,
    poolSize: POOL_SIZE,
    applicationName: 'slow-upload-test',
    statementTimeoutMs: 120_000,
    idleInTransactionTimeoutMs: 30_000,
  });
  await pool.initialize();
  const { app } = buildTestApp(
    { dataSource: pool, temporal: services.temporal.client },
    { CSV_MIN_UPLOAD_BYTES_PER_SECOND: String(MIN_RATE) },
  );
  const handle = app.callback();
  http = createServer((req, res) => void handle(req, res)).listen(0, '127.0.0.1');
  await once(http, 'listening');
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  owner = await signUp(http);
});

afterAll(async () => {
  http.closeAllConnections();
  http.close();
  await pool.destroy();
});

/** An upload that sends one byte a second until the server answers; resolves with that answer. */
function drip(): { answered: Promise<{ status: number; body: string; afterMs: number }>; stop(): void } {
  const started = Date.now();
  const req = httpRequest(`${base}/api/v1/campaign/sources`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${owner.token}`, 'Content-Type': 'text/csv', 'Transfer-Encoding': 'chunked' },
  });
  const bytes = 'phone_number\n+14155550100\n'.repeat(100);
  let sent = 0;
  const timer = setInterval(() => req.write(bytes[sent++ % bytes.length] ?? 'x'), 1000);
  const answered = new Promise<{ status: number; body: string; afterMs: number }>((resolve, reject) => {
    req.on('response', (res: IncomingMessage) => {
      clearInterval(timer);
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, afterMs: Date.now() - started }));
    });
    req.on('error', (error) => {
      clearInterval(timer);
      reject(error);
    });
  });
  req.write('p');
  return {
    answered,
    stop() {
      clearInterval(timer);
      req.destroy();
    },
  };
}

it('ten uploads dripping a byte a second leave every other route answering, and are cut off', async () => {
  const drips = Array.from({ length: DRIPPING_UPLOADS }, drip);
  try {
    // While they drip, other clients use routes that need the database.
    const otherAnswers: number[] = [];
    const idleInTransaction: number[] = [];
    for (let second = 0; second < 8; second += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const answers = await Promise.all([
        request(http).get('/api/v1/auth/me').auth(owner.token, { type: 'bearer' }),
        request(http).get('/api/v1/workflow/fetch').auth(owner.token, { type: 'bearer' }),
        request(http).post('/api/v1/auth/login').send({ email: owner.email, password: 'wrong password' }),
      ]);
      otherAnswers.push(...answers.map((res) => res.status));
      const [row] = await services.db.dataSource.query<{ count: number }[]>(
        `SELECT count(*)::int AS count FROM pg_stat_activity
          WHERE application_name = 'slow-upload-test' AND state LIKE 'idle in transaction%'`,
      );
      idleInTransaction.push(row?.count ?? -1);
    }
    // Reads answer 200; the failing login answers 401, or 429 once it backs off; nothing fails.
    expect(otherAnswers.filter((status, n) => (n % 3 === 2 ? ![401, 429].includes(status) : status !== 200))).toEqual(
      [],
    );
    // No upload holds a connection in a transaction while it waits for bytes.
    expect(Math.max(...idleInTransaction)).toBe(0);

    // Each is refused once a 10-second period brings fewer than MIN_RATE bytes a second.
    const answers = await Promise.all(drips.map((upload) => upload.answered));
    for (const answer of answers) {
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.body)).toEqual({
        detail: `The upload was slower than ${MIN_RATE} bytes per second (CSV_MIN_UPLOAD_BYTES_PER_SECOND); send it faster`,
      });
      expect(answer.afterMs).toBeLessThan(25_000);
    }
  } finally {
    for (const upload of drips) upload.stop();
  }
  const [stored] = await services.db.dataSource.query<{ sources: number }[]>(
    `SELECT count(*)::int AS sources FROM campaign_sources WHERE organization_id = $1`,
    [owner.user.organization_id],
  );
  expect(stored?.sources).toBe(0);
});

it('still imports a list sent at a normal pace, and several at once', async () => {
  const csv = (n: number) => `phone_number,name\n+1415555${String(n).padStart(4, '0')},Ada\n`;
  const answers = await Promise.all(
    Array.from({ length: 4 }, (_, n) =>
      request(http)
        .post('/api/v1/campaign/sources')
        .auth(owner.token, { type: 'bearer' })
        .set('Content-Type', 'text/csv')
        .send(csv(n)),
    ),
  );
  expect(answers.map((res) => res.status)).toEqual([201, 201, 201, 201]);
  expect(answers.map((res) => (res.body as { total_rows: number }).total_rows)).toEqual([1, 1, 1, 1]);
});
