import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import request from 'supertest';
import { useTestServices } from '../helpers/services';
import { terminateAll, uniqueTaskQueue } from '../helpers/temporal';

/**
 * The codec server (`/codec/encode`, `/codec/decode`) the Temporal UI and CLI decrypt payloads
 * with: Temporal's protocol, CORS for the UI's origin, and only for operators, since what it
 * decrypts is every organization's calls.
 */
const services = useTestServices();
const OPERATOR_TOKEN = 'operator-token-of-at-least-32-characters';
const UI_ORIGIN = 'https://temporal-ui.example.com';
const fromInternet = '198.51.100.77';

/** The API behind one proxy, as in production: the proxy connecting from this host makes nobody local. */
const behindProxy = () =>
  services.server({ TRUST_PROXY: '1', OPERATOR_TOKEN, TEMPORAL_UI_ORIGINS: `${UI_ORIGIN},http://localhost:8233` });

/** A payload as the UI posts it: the JSON form of `temporal.api.common.v1.Payload`, bytes in base64. */
const asJson = (payload: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  ),
  data: Buffer.from(payload.data ?? []).toString('base64'),
});
const fromJson = (json: { metadata: Record<string, string>; data: string }): Payload => ({
  metadata: Object.fromEntries(
    Object.entries(json.metadata).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
  ),
  data: Buffer.from(json.data, 'base64'),
});

const secretInput = { phone_number: '+14155550123', first_name: 'Zebulon' };

/** The input payload of a workflow started by the test client (which encrypts), read from the server raw. */
async function storedInputPayload(): Promise<Payload> {
  const taskQueue = uniqueTaskQueue('codec-server');
  const workflowId = `${taskQueue}-input`;
  // No worker polls the queue: the start event is all this needs.
  await services.temporal.client.workflow.start('callWorkflow', { taskQueue, workflowId, args: [secretInput] });
  try {
    const { history } = await services.temporal.client.workflowService.getWorkflowExecutionHistory({
      namespace: 'default',
      execution: { workflowId },
    });
    const input = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    if (!input) throw new Error('the started event has no input');
    return input;
  } finally {
    await terminateAll(services.temporal.client, [workflowId]);
  }
}

describe('the codec server', () => {
  it('decrypts a stored payload for an operator, as the Temporal UI asks', async () => {
    const stored = await storedInputPayload();
    expect(Buffer.from(stored.data ?? []).toString()).not.toContain('Zebulon');
    const res = await request(behindProxy())
      .post('/codec/decode')
      .set('Origin', UI_ORIGIN)
      .set('X-Namespace', 'default')
      .set('X-Forwarded-For', fromInternet)
      .set('X-Operator-Token', OPERATOR_TOKEN)
      .send({ payloads: [asJson(stored)] });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(UI_ORIGIN);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    const [decoded] = (res.body as { payloads: { metadata: Record<string, string>; data: string }[] }).payloads;
    expect(defaultPayloadConverter.fromPayload(fromJson(decoded ?? { metadata: {}, data: '' }))).toEqual(secretInput);
  });

  it('encodes what it decodes back, for the CLI with its bearer token', async () => {
    const plain = asJson(defaultPayloadConverter.toPayload(secretInput));
    const encoded = await request(behindProxy())
      .post('/codec/encode')
      .set('X-Forwarded-For', fromInternet)
      .set('Authorization', `Bearer ${OPERATOR_TOKEN}`)
      .send({ payloads: [plain] });
    expect(encoded.status).toBe(200);
    expect(JSON.stringify(encoded.body)).not.toContain(plain.data);
    const decoded = await request(behindProxy())
      .post('/codec/decode')
      .set('X-Forwarded-For', fromInternet)
      .set('Authorization', `Bearer ${OPERATOR_TOKEN}`)
      .send(encoded.body);
    expect(decoded.body).toEqual({ payloads: [plain] });
  });

  it.each(['/codec/decode', '/codec/encode'])(
    'refuses %s without credentials (401) and with wrong ones (403)',
    async (path) => {
      const stored = await storedInputPayload();
      const body = { payloads: [asJson(stored)] };
      const anonymous = await request(behindProxy()).post(path).set('X-Forwarded-For', fromInternet).send(body);
      expect(anonymous.status).toBe(401);
      expect(JSON.stringify(anonymous.body)).not.toContain('Zebulon');
      const guessed = await request(behindProxy())
        .post(path)
        .set('X-Forwarded-For', fromInternet)
        .set('Authorization', `Bearer ${randomBytes(24).toString('base64url')}`)
        .send(body);
      expect(guessed.status).toBe(403);
      // The proxy itself connects from this host: that does not make its clients local.
      expect((await request(behindProxy()).post(path).send(body)).status).toBe(401);
      // A signed-in user of an organization is no operator.
      expect(
        (await request(behindProxy()).post(path).set('Authorization', 'Bearer eyJhbGciOi.x.y').send(body)).status,
      ).toBe(403);
    },
  );

  it('answers a caller on its own host when no proxy is in front (npm start)', async () => {
    const local = services.server({ OPERATOR_TOKEN });
    const res = await request(local)
      .post('/codec/encode')
      .send({ payloads: [asJson(defaultPayloadConverter.toPayload(1))] });
    expect(res.status).toBe(200);
  });

  it('signs an operator in with a session cookie the UI sends, and refuses forged ones', async () => {
    const app = behindProxy();
    expect((await request(app).get('/codec/login')).text).toContain('<form method="post" action="/codec/login">');
    const wrong = await request(app)
      .post('/codec/login')
      .type('form')
      .send({ token: 'not the operator token at all, no' });
    expect(wrong.status).toBe(403);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    const login = await request(app).post('/codec/login').type('form').send({ token: OPERATOR_TOKEN });
    expect(login.status).toBe(200);
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(/^switchboard_codec=\d+\.[\w-]{43}; path=\/codec; .*samesite=strict; httponly$/);
    const session = cookie.split(';')[0] ?? '';
    const body = { payloads: [asJson(await storedInputPayload())] };
    const withCookie = await request(app)
      .post('/codec/decode')
      .set('Origin', UI_ORIGIN)
      .set('X-Forwarded-For', fromInternet)
      .set('Cookie', session)
      .send(body);
    expect(withCookie.status).toBe(200);
    const [value, signature] = session.split('.');
    const forged = [`${value}.${'A'.repeat(43)}`, `${String(Number(value?.split('=')[1]) + 1)}.${signature}`];
    for (const cookieValue of forged) {
      const res = await request(app)
        .post('/codec/decode')
        .set('X-Forwarded-For', fromInternet)
        .set('Cookie', cookieValue.startsWith('switchboard_codec=') ? cookieValue : `switchboard_codec=${cookieValue}`)
        .send(body);
      expect(res.status).toBe(401);
    }
  });

  it('answers the UI origin’s CORS preflight with credentials allowed, and no other origin’s', async () => {
    const preflight = (origin: string) =>
      request(behindProxy())
        .options('/codec/decode')
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'content-type,x-namespace,authorization');
    const allowed = await preflight(UI_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers).toMatchObject({
      'access-control-allow-origin': UI_ORIGIN,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'POST',
    });
    expect(allowed.headers['access-control-allow-headers']).toMatch(/Content-Type, X-Namespace, Authorization/);
    const other = await preflight('https://evil.example.net');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('refuses malformed bodies (422) and payloads it cannot decrypt, naming which', async () => {
    const app = behindProxy();
    const post = (body: unknown) =>
      request(app)
        .post('/codec/decode')
        .set('X-Forwarded-For', fromInternet)
        .set('X-Operator-Token', OPERATOR_TOKEN)
        .send(body as object);
    expect((await post({ payloads: [{ data: 'not base64!' }] })).status).toBe(422);
    // Protobuf's JSON leaves empty lists out: the CLI asks about no payloads with `{}`.
    expect((await post({})).body).toEqual({ payloads: [] });
    const foreign = {
      metadata: { encoding: Buffer.from('binary/encrypted').toString('base64'), 'encryption-key-id': 'b2xk' },
      data: randomBytes(64).toString('base64'),
    };
    const res = await post({ payloads: [asJson(defaultPayloadConverter.toPayload('plain')), foreign] });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'payloads', 1], msg: expect.stringMatching(/"old"/) });
  });
});
