import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AddressPolicy } from '../../platform/address-guard';
import { guardedRequest, OutboundRefusedError, type OutboundLimits } from '../../platform/outbound-http';

interface Seen {
  server: 'first' | 'second';
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const seen: Seen[] = [];
let first: Server;
let second: Server;
let firstBase: string;
let secondBase: string;

/** Two origins on 127.0.0.1 (two ports): `first` redirects, `second` answers. */
function serve(name: Seen['server'], route: (path: string) => { status: number; location?: string }): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        server: name,
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const { status, location } = route(req.url ?? '/');
      res.writeHead(status, location ? { location } : {}).end(`answered ${req.url ?? ''}`);
    });
  });
}

beforeAll(async () => {
  second = serve('second', () => ({ status: 200 }));
  second.listen(0, '127.0.0.1');
  await once(second, 'listening');
  secondBase = `http://127.0.0.1:${(second.address() as AddressInfo).port}`;
  first = serve('first', (path) => {
    if (path === '/same-origin') return { status: 307, location: '/landed' };
    if (path === '/other-origin') return { status: 302, location: `${secondBase}/landed` };
    if (path === '/see-other') return { status: 303, location: `${secondBase}/landed` };
    if (path === '/to-name') return { status: 302, location: 'http://metadata.internal.test/latest' };
    if (path === '/to-file') return { status: 302, location: 'file:///etc/passwd' };
    if (path === '/loop') return { status: 302, location: '/loop' };
    return { status: 200 };
  });
  first.listen(0, '127.0.0.1');
  await once(first, 'listening');
  firstBase = `http://127.0.0.1:${(first.address() as AddressInfo).port}`;
});

afterAll(async () => {
  first.close();
  second.close();
  await Promise.all([once(first, 'close'), once(second, 'close')]);
});

beforeEach(() => {
  seen.length = 0;
});

const limits: OutboundLimits = {
  timeoutMs: 5_000,
  deadlineMs: 10_000,
  maxAnswerBytes: 1_000,
  maxRedirects: 3,
  privateHeaders: ['Authorization'],
};
const resolved: string[] = [];
/** Local addresses allowed (the servers are on 127.0.0.1); names resolve through a resolver that knows none. */
const policy: AddressPolicy = {
  allowPrivate: true,
  resolve: (hostname) => {
    resolved.push(hostname);
    return Promise.reject(new Error('ENOTFOUND'));
  },
};
const post = (path: string) => ({
  method: 'POST',
  url: `${firstBase}${path}`,
  headers: { Authorization: 'Bearer tok_secret', 'Content-Type': 'application/json', 'Idempotency-Key': 'k-1' },
  body: '{"order":"A-1"}',
});

describe('guardedRequest and redirects', () => {
  it('follows a same-origin redirect with the method, body and credential kept', async () => {
    const answer = await guardedRequest(post('/same-origin'), policy, limits);
    expect(answer).toMatchObject({ status: 200, url: `${firstBase}/landed` });
    expect(seen.at(-1)).toMatchObject({
      server: 'first',
      method: 'POST',
      url: '/landed',
      body: '{"order":"A-1"}',
      headers: expect.objectContaining({ authorization: 'Bearer tok_secret', 'idempotency-key': 'k-1' }),
    });
  });

  it('drops the credential on a redirect to another origin, and turns a POST after 302 or 303 into a bodiless GET', async () => {
    for (const path of ['/other-origin', '/see-other']) {
      seen.length = 0;
      const answer = await guardedRequest(post(path), policy, limits);
      expect(answer.url).toBe(`${secondBase}/landed`);
      const landed = seen.find((request) => request.server === 'second');
      expect(landed).toMatchObject({ method: 'GET', body: '' });
      expect(landed?.headers.authorization).toBeUndefined();
      expect(landed?.headers['content-type']).toBeUndefined();
      expect(landed?.headers['idempotency-key']).toBe('k-1');
    }
  });

  it('checks every redirect target as it checks the first address, and refuses schemes other than http(s)', async () => {
    resolved.length = 0;
    await expect(guardedRequest(post('/to-name'), policy, limits)).rejects.toThrow(
      new OutboundRefusedError('metadata.internal.test does not resolve: ENOTFOUND'),
    );
    expect(resolved).toEqual(['metadata.internal.test']);
    await expect(guardedRequest(post('/to-file'), policy, limits)).rejects.toThrow(/file: URLs are not allowed/);
  });

  it('follows at most maxRedirects, then answers the redirect itself; none unless asked', async () => {
    const answer = await guardedRequest(post('/loop'), policy, limits);
    expect(answer.status).toBe(302);
    expect(seen).toHaveLength(4);
    seen.length = 0;
    const unfollowed = await guardedRequest(post('/same-origin'), policy, { ...limits, maxRedirects: undefined });
    expect(unfollowed.status).toBe(307);
    expect(seen).toHaveLength(1);
  });
});
