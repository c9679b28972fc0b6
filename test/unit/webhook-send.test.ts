import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Resolver } from '../../platform/address-guard';
import { WebhookDeliveryError, WebhookRefusedError, WebhookRejectedError } from '../../domain/webhooks/delivery-errors';
import { DEFAULT_SEND_LIMITS, sendWebhook } from '../../domain/webhooks/send';

let server: Server;
let port: number;
const seen: { path: string; host: string; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ path: req.url ?? '', host: req.headers.host ?? '', body });
      if (req.url === '/redirect') res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
      else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 1000);
      else if (req.url === '/drip') {
        // An answer that never ends, one byte at a time, each well inside the socket timeout.
        res.writeHead(500);
        const timer = setInterval(() => res.write('x'), 20);
        res.on('close', () => clearInterval(timer));
      } else if (req.url === '/huge') res.writeHead(500).end('y'.repeat(8 * 1024 * 1024));
      else if (req.url === '/hang') return;
      else res.writeHead(Number(req.url?.slice(1)) || 200).end('answer body');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A name only this resolver knows: reaching the server through it proves the connection used the checked address. */
const resolve: Resolver = (hostname) =>
  hostname === 'hooks.test'
    ? Promise.resolve([{ address: '127.0.0.1', family: 4 }])
    : Promise.reject(new Error(`ENOTFOUND ${hostname}`));
const allow = { allowPrivate: true, resolve };
const limits = (timeoutMs: number) => ({ ...DEFAULT_SEND_LIMITS, timeoutMs });
const post = (path: string, host = 'hooks.test') => ({
  method: 'POST',
  url: `http://${host}:${port}${path}`,
  headers: { 'content-type': 'application/json' },
  body: '{"a":1}',
});

describe('sendWebhook', () => {
  it('connects to the address it checked, keeping the Host header of the URL', async () => {
    await expect(sendWebhook(post('/200'), allow, limits(2000))).resolves.toBe(200);
    expect(seen.at(-1)).toEqual({ path: '/200', host: `hooks.test:${port}`, body: '{"a":1}' });
  });

  it('refuses a private address before connecting when private webhooks are not allowed', async () => {
    const before = seen.length;
    await expect(sendWebhook(post('/200'), { allowPrivate: false, resolve }, limits(2000))).rejects.toThrow(
      WebhookRefusedError,
    );
    expect(seen.length).toBe(before);
  });

  it('refuses URLs that are not http or https', async () => {
    await expect(sendWebhook({ ...post('/200'), url: 'file:///etc/passwd' }, allow, limits(2000))).rejects.toThrow(
      WebhookRefusedError,
    );
  });

  it('refuses a request Node cannot send, such as a header value with a line break', async () => {
    const request = { ...post('/200'), headers: { 'x-customer': 'Ada\r\nX-Injected: 1' } };
    await expect(sendWebhook(request, allow, limits(2000))).rejects.toThrow(/the request is invalid/);
  });

  it('does not follow redirects', async () => {
    await expect(sendWebhook(post('/redirect'), allow, limits(2000))).rejects.toThrow(WebhookRejectedError);
  });

  it('treats 4xx as final, and 5xx, 408, 429 and timeouts as worth another try', async () => {
    await expect(sendWebhook(post('/404'), allow, limits(2000))).rejects.toThrow(WebhookRejectedError);
    await expect(sendWebhook(post('/503'), allow, limits(2000))).rejects.toThrow(WebhookDeliveryError);
    await expect(sendWebhook(post('/429'), allow, limits(2000))).rejects.toThrow(WebhookDeliveryError);
    await expect(sendWebhook(post('/408'), allow, limits(2000))).rejects.toThrow(WebhookDeliveryError);
    await expect(sendWebhook(post('/slow'), allow, limits(200))).rejects.toThrow(/no answer within 200 ms/);
  });

  it('cuts off an answer that drips past the whole-delivery deadline', async () => {
    const started = Date.now();
    await expect(sendWebhook(post('/drip'), allow, { ...limits(2000), deadlineMs: 300 })).rejects.toThrow(
      /no complete answer within 300 ms/,
    );
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('reads no more of an answer than its cap', async () => {
    await expect(sendWebhook(post('/huge'), allow, { ...limits(2000), maxAnswerBytes: 1024 })).rejects.toThrow(
      WebhookDeliveryError,
    );
  });

  it("stops when the activity's cancellation signal fires", async () => {
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 100);
    await expect(sendWebhook(post('/hang'), allow, { ...limits(5000), signal: cancel.signal })).rejects.toThrow(
      /cancelled/,
    );
  });

  it('keeps the start of a failed answer for the logs', async () => {
    await expect(sendWebhook(post('/500'), allow, limits(2000))).rejects.toThrow(
      `hooks.test:${port} answered 500: answer body`,
    );
  });
});
