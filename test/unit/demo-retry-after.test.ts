import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO_RETRY_AFTER, fetchWaitingOutRetryAfter, type RetryAfterPolicy } from '../../scripts/demo-fetch';

/** What the local server answers to each request in turn (the last one repeats). */
type Answer = { status: number; retryAfter?: string };

let server: Server;
let url: string;
let answers: Answer[] = [];
let received: { method: string; body: string }[] = [];

const bodyOf = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => resolve(body));
  });

beforeAll(async () => {
  server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      received.push({ method: req.method ?? '', body });
      const answer = answers[Math.min(received.length - 1, answers.length - 1)] ?? { status: 200 };
      res.writeHead(answer.status, {
        'Content-Type': 'application/json',
        ...(answer.retryAfter === undefined ? {} : { 'Retry-After': answer.retryAfter }),
      });
      res.end(JSON.stringify(answer.status === 200 ? { ok: true } : { detail: 'Too many requests' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/auth/login`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  received = [];
});

/** The demo's policy with the waits recorded instead of slept, so no test depends on the clock. */
function recordingPolicy(): { policy: RetryAfterPolicy; waits: number[] } {
  const waits: number[] = [];
  const policy = { ...DEMO_RETRY_AFTER, sleep: (ms: number) => (waits.push(ms / 1000), Promise.resolve()) };
  return { policy, waits };
}

const login = (policy: RetryAfterPolicy) =>
  fetchWaitingOutRetryAfter(
    url,
    { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' },
    policy,
  );

describe("the demo's requests", () => {
  it('wait out a 429 with Retry-After and send the same request again', async () => {
    answers = [{ status: 429, retryAfter: '7' }, { status: 200 }];
    const { policy, waits } = recordingPolicy();
    const res = await login(policy);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(waits).toEqual([7]);
    expect(received).toEqual([
      { method: 'POST', body: '{"a":1}' },
      { method: 'POST', body: '{"a":1}' },
    ]);
  });

  it('wait out a 503 whose Retry-After is an HTTP date', async () => {
    answers = [{ status: 503, retryAfter: new Date(Date.now() + 30_000).toUTCString() }, { status: 200 }];
    const { policy, waits } = recordingPolicy();
    expect((await login(policy)).status).toBe(200);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);
    expect(waits[0]).toBeLessThanOrEqual(30);
  });

  it('really sleep the Retry-After between the two requests', async () => {
    answers = [{ status: 429, retryAfter: '1' }, { status: 200 }];
    const startedAt = Date.now();
    const told: number[] = [];
    const res = await login({ ...DEMO_RETRY_AFTER, onWait: (_status, seconds) => told.push(seconds) });
    expect(res.status).toBe(200);
    expect(told).toEqual([1]);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000);
  });

  it('give up after a few waits and answer the last 429 as it is', async () => {
    answers = [{ status: 429, retryAfter: '1' }];
    const { policy, waits } = recordingPolicy();
    const res = await login(policy);
    expect(res.status).toBe(429);
    expect(waits).toEqual([1, 1, 1]);
    expect(received).toHaveLength(DEMO_RETRY_AFTER.maxWaits + 1);
  });

  it('do not wait longer than a minute: a longer Retry-After is answered at once', async () => {
    answers = [{ status: 429, retryAfter: '900' }, { status: 200 }];
    const { policy, waits } = recordingPolicy();
    const res = await login(policy);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('900');
    expect(waits).toEqual([]);
    expect(received).toHaveLength(1);
  });

  it('do not wait without a readable Retry-After, nor on other statuses', async () => {
    for (const answer of [{ status: 429 }, { status: 429, retryAfter: 'soon' }, { status: 500, retryAfter: '1' }]) {
      answers = [answer, { status: 200 }];
      received = [];
      const { policy, waits } = recordingPolicy();
      expect((await login(policy)).status).toBe(answer.status);
      expect(waits).toEqual([]);
      expect(received).toHaveLength(1);
    }
  });
});
