import { generateKeyPairSync } from 'node:crypto';
import { jwtVerify } from 'jose';
import { ProviderError, type OriginateRequest, type TelephonyProvider } from '../../telephony/provider';
import { vonageProvider, type VonageConfig } from '../../telephony/providers/vonage';
import { NO_CALLER_ID_REASON } from '../../telephony/readiness';
import { FakeProviderServer, type RecordedRequest } from './helpers/fake-provider-server';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const config: VonageConfig = {
  api_key: 'abcd1234',
  api_secret: 'api-secret-value',
  application_id: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
  private_key: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  signature_secret: 'qwertyuiopasdfghjklzxcvbnm123456',
};
const call: OriginateRequest = {
  runId: 42,
  to: '+19162255887',
  from: '+14152739164',
  idempotencyKey: 'call-7-42/attempt-1',
  statusCallbackUrl: 'https://sb.example.com/api/v1/telephony/vonage/status/42',
  answerUrl: 'https://sb.example.com/api/v1/telephony/vonage/answer/42',
  mediaStreamUrl: 'wss://sb.example.com/api/v1/telephony/vonage/media/42',
};
const uuid = '63f61863-4a51-4f6b-86e1-46edebcf9356';
const now = new Date('2026-01-01T12:00:00.000Z');
const unauthorized = {
  type: 'https://developer.nexmo.com/api-errors#unauthorized',
  title: 'Unauthorized',
  detail: 'You did not provide correct credentials.',
  instance: 'trace-1',
};
const problem = 'application/problem+json';

let server: FakeProviderServer;
let vonage: TelephonyProvider;

beforeAll(async () => {
  server = await FakeProviderServer.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  vonage = vonageProvider.create(config, { apiBaseUrl: server.url, timeoutMs: 2_000, now: () => now });
});

/** The Voice API takes an RS256 JWT of the application, signed with its private key. */
async function expectApplicationJwt(request: RecordedRequest): Promise<void> {
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const { payload, protectedHeader } = await jwtVerify(token, publicKey, { algorithms: ['RS256'], currentDate: now });
  expect(protectedHeader.alg).toBe('RS256');
  expect(payload).toMatchObject({
    application_id: config.application_id,
    iat: now.getTime() / 1000,
    exp: now.getTime() / 1000 + 3600,
    jti: expect.any(String) as unknown,
  });
}

describe('originate', () => {
  it('creates the call with an application JWT, numbers without +, and the answer and event URLs', async () => {
    server.answer({
      status: 201,
      body: { uuid, status: 'started', direction: 'outbound', conversation_uuid: 'CON-f972836a' },
    });

    await expect(vonage.originate(call)).resolves.toEqual({ providerCallId: uuid });

    const request = server.onlyRequest();
    expect([request.method, request.path]).toEqual(['POST', '/v1/calls']);
    await expectApplicationJwt(request);
    expect(JSON.parse(request.body)).toEqual({
      to: [{ type: 'phone', number: '19162255887' }],
      from: { type: 'phone', number: '14152739164' },
      answer_url: [call.answerUrl],
      answer_method: 'GET',
      event_url: [call.statusCallbackUrl],
      event_method: 'POST',
    });
  });

  it.each([
    [401, false, unauthorized],
    [400, false, { type: 'invalid-params', title: 'Bad Request', detail: 'Invalid number' }],
    [403, false, { type: 'low-balance', title: 'Forbidden', detail: 'This request exceeds your balance' }],
    [429, true, { title: 'Too Many Requests', detail: 'Throttled' }],
    [500, true, { title: 'Internal Server Error', detail: 'Something went wrong' }],
  ])('turns HTTP %i into a ProviderError (retryable: %s) with the problem detail', async (status, retryable, body) => {
    server.answer({ status, body, contentType: problem });
    const error = await vonage.originate(call).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status, retryable, message: expect.stringContaining(body.detail) as unknown });
  });

  it('gives up on a provider that does not answer, as a retryable error', async () => {
    server.answer('hang');
    await expect(vonage.originate(call)).rejects.toMatchObject({ name: 'ProviderError', retryable: true });
  });

  it('refuses to dial without a caller id or with a broken private key, without calling Vonage', async () => {
    await expect(vonage.originate({ ...call, from: null })).rejects.toThrow('caller id');
    const broken = vonageProvider.create({ ...config, private_key: 'not a key' }, { apiBaseUrl: server.url });
    const error = await broken.originate(call).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toBe('Vonage private_key is not a valid PEM private key');
    expect(server.requests).toHaveLength(0);
  });
});

describe('getCallStatus', () => {
  it('maps the call resource, with its duration', async () => {
    server.answer({
      status: 200,
      body: {
        uuid,
        conversation_uuid: 'CON-f972836a',
        to: { type: 'phone', number: '19162255887' },
        from: { type: 'phone', number: '14152739164' },
        status: 'completed',
        direction: 'outbound',
        rate: '0.39',
        price: '42.00',
        duration: '42',
        start_time: '2020-01-01 12:00:00',
        end_time: '2020-01-01 12:00:42',
        network: '65512',
      },
    });

    await expect(vonage.getCallStatus(uuid)).resolves.toMatchObject({
      status: 'completed',
      providerCallId: uuid,
      durationSeconds: 42,
    });
    const request = server.onlyRequest();
    expect([request.method, request.path]).toEqual(['GET', `/v1/calls/${uuid}`]);
    await expectApplicationJwt(request);
  });

  it('answers null for a call Vonage does not know, and passes other errors on', async () => {
    server.answer(
      { status: 404, body: { title: 'Not Found', detail: 'Call not found' }, contentType: problem },
      { status: 401, body: unauthorized, contentType: problem },
    );
    await expect(vonage.getCallStatus(uuid)).resolves.toBeNull();
    await expect(vonage.getCallStatus(uuid)).rejects.toMatchObject({ status: 401 });
  });
});

describe('hangup', () => {
  it('puts the hangup action', async () => {
    server.answer({ status: 204 });
    await vonage.hangup(uuid);
    const request = server.onlyRequest();
    expect([request.method, request.path]).toEqual(['PUT', `/v1/calls/${uuid}`]);
    expect(JSON.parse(request.body)).toEqual({ action: 'hangup' });
    await expectApplicationJwt(request);
  });

  it('treats a call Vonage no longer knows as hung up, and other errors as errors', async () => {
    server.answer({ status: 404, body: { title: 'Not Found' } }, { status: 503 });
    await expect(vonage.hangup(uuid)).resolves.toBeUndefined();
    await expect(vonage.hangup(uuid)).rejects.toMatchObject({ status: 503, retryable: true });
  });
});

describe('configureInbound', () => {
  const inboundUrl = 'https://sb.example.com/api/v1/telephony/vonage/inbound';
  const applicationPath = `/v2/applications/${config.application_id}`;
  const application = {
    id: config.application_id,
    name: 'switchboard',
    keys: { public_key: '-----BEGIN PUBLIC KEY-----' },
    capabilities: {
      voice: {
        webhooks: {
          answer_url: { address: 'https://old.example.com/answer', http_method: 'GET' },
          event_url: { address: 'https://old.example.com/events', http_method: 'POST' },
          fallback_answer_url: { address: 'https://old.example.com/fallback', http_method: 'GET' },
        },
        region: 'eu-west',
      },
      messages: { webhooks: {} },
    },
  };

  it('reads the application and puts it back with our answer and event URLs and signed callbacks', async () => {
    server.answer({ status: 200, body: application }, { status: 200, body: application });

    await expect(vonage.configureInbound('+14152739164', inboundUrl)).resolves.toMatchObject({ ok: true });

    const [read, write] = server.requests;
    const basic = `Basic ${Buffer.from('abcd1234:api-secret-value').toString('base64')}`;
    expect([read!.method, read!.path, read!.headers.authorization]).toEqual(['GET', applicationPath, basic]);
    expect([write!.method, write!.path, write!.headers.authorization]).toEqual(['PUT', applicationPath, basic]);
    expect(JSON.parse(write!.body)).toEqual({
      ...application,
      capabilities: {
        ...application.capabilities,
        voice: {
          region: 'eu-west',
          signed_callbacks: true,
          webhooks: {
            answer_url: { address: inboundUrl, http_method: 'POST' },
            event_url: { address: 'https://sb.example.com/api/v1/telephony/vonage/events', http_method: 'POST' },
            fallback_answer_url: { address: 'https://old.example.com/fallback', http_method: 'GET' },
          },
        },
      },
    });
  });

  it("reports the provider's refusal without throwing", async () => {
    server.answer({ status: 401, body: unauthorized, contentType: problem });
    const sync = await vonage.configureInbound('+14152739164', inboundUrl);
    expect(sync).toEqual({ ok: false, message: 'Vonage answered 401: You did not provide correct credentials.' });
  });

  it('needs the signature secret, since inbound callbacks are signed', async () => {
    const unsigned = vonageProvider.create({ ...config, signature_secret: undefined }, { apiBaseUrl: server.url });
    await expect(unsigned.configureInbound('+14152739164', inboundUrl)).resolves.toMatchObject({ ok: false });
    expect(server.requests).toHaveLength(0);
  });

  it('detaches as a no-op, since the answer URL is shared by the whole application', async () => {
    await expect(vonage.configureInbound('+14152739164', null)).resolves.toMatchObject({ ok: true });
    expect(server.requests).toHaveLength(0);
  });
});

describe('readiness', () => {
  it('needs an active number for the caller id', () => {
    const number = { address: '+14152739164', isActive: true, isDefaultCallerId: false };
    expect(vonage.readiness([number])).toEqual({ ready: true });
    expect(vonage.readiness([])).toEqual({ ready: false, reason: NO_CALLER_ID_REASON });
  });
});
