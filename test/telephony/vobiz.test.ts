import { randomUUID } from 'node:crypto';
import { ProviderError, type OriginateRequest, type TelephonyProvider } from '../../telephony/provider';
import { PLIVO_STATUSES } from '../../telephony/providers/plivo-compatible/statuses';
import { plivoV3Signature } from '../../telephony/providers/plivo-compatible/signature-v3';
import { vobizProvider } from '../../telephony/providers/vobiz';
import { vobizV3Signature } from '../../telephony/providers/vobiz/signature';
import { FakeProviderServer } from './helpers/fake-provider-server';

const AUTH_ID = 'MA_VOBIZ_1234';
const TOKEN = 'vobiz_auth_token_9012';
const REQUEST_UUID = '5a9fd4a0-3d4c-11ef-bef9-0242ac110005';
const account = `/api/v1/Account/${AUTH_ID}`;
const call: OriginateRequest = {
  runId: 42,
  to: '+919876543210',
  from: '+918012345678',
  idempotencyKey: 'call-7-42/attempt-1',
  statusCallbackUrl: 'https://sb.example.com/api/v1/telephony/vobiz/status/42',
  answerUrl: 'https://sb.example.com/api/v1/telephony/vobiz/answer/42',
  mediaStreamUrl: 'wss://sb.example.com/api/v1/telephony/vobiz/media/42',
};

let server: FakeProviderServer;
let vobiz: TelephonyProvider;
const create = (applicationId?: string, authId = AUTH_ID) =>
  vobizProvider.create(
    { auth_id: authId, auth_token: TOKEN, ...(applicationId ? { application_id: applicationId } : {}) },
    { apiBaseUrl: server.url, timeoutMs: 2_000 },
  );

beforeAll(async () => {
  server = await FakeProviderServer.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  vobiz = create('app-77');
});

const expectVobizAuth = (headers: Record<string, unknown>) => {
  expect(headers['x-auth-id']).toBe(AUTH_ID);
  expect(headers['x-auth-token']).toBe(TOKEN);
  expect(headers.authorization).toBeUndefined();
};

describe('originate', () => {
  it('posts the Plivo fields under /api/v1 with X-Auth headers and keeps the documented request_uuid', async () => {
    server.answer({
      status: 201,
      body: { api_id: '5a9fcfee-3d4c-11ef-bef9-0242ac110005', request_uuid: REQUEST_UUID, message: 'Call fired' },
    });

    await expect(vobiz.originate(call)).resolves.toEqual({ providerCallId: REQUEST_UUID });

    const request = server.onlyRequest();
    expect(request.method).toBe('POST');
    expect(request.path).toBe(`${account}/Call/`);
    expectVobizAuth(request.headers);
    expect(JSON.parse(request.body)).toEqual({
      from: '918012345678',
      to: '919876543210',
      answer_url: call.answerUrl,
      answer_method: 'POST',
      ring_url: call.statusCallbackUrl,
      ring_method: 'POST',
      hangup_url: call.statusCallbackUrl,
      hangup_method: 'POST',
    });
  });

  it('prefers call_uuid when Vobiz sends it', async () => {
    server.answer({ status: 201, body: { call_uuid: 'call-uuid-1', request_uuid: REQUEST_UUID } });
    await expect(vobiz.originate(call)).resolves.toEqual({ providerCallId: 'call-uuid-1' });
  });

  it.each([
    [401, 'invalid credentials', false],
    [404, 'account not found', false],
    [502, 'upstream error', true],
  ])('turns a %s answer into a ProviderError', async (status, error, retryable) => {
    server.answer({ status, body: { api_id: 'x', error } });
    await expect(vobiz.originate(call)).rejects.toMatchObject({
      message: `Vobiz answered ${status}: ${error}`,
      status,
      retryable,
    });
  });

  it('times out as a retryable ProviderError', async () => {
    server.answer('hang');
    await expect(vobiz.originate(call)).rejects.toMatchObject({
      message: 'Vobiz did not answer within 2000 ms',
      retryable: true,
    });
  });
});

describe('status', () => {
  const webhook = (fields: Record<string, string>) => ({
    method: 'POST',
    url: call.statusCallbackUrl,
    headers: {},
    rawBody: new URLSearchParams({ CallUUID: REQUEST_UUID, auth_id: AUTH_ID, ...fields }).toString(),
  });

  it.each(Object.entries(PLIVO_STATUSES))('parses CallStatus=%s as %s', (callStatus, expected) => {
    expect(vobiz.parseStatusWebhook(webhook({ CallStatus: callStatus })).status).toBe(expected);
  });

  it('reads duration and id from the hangup callback', () => {
    expect(
      vobiz.parseStatusWebhook(webhook({ Event: 'Hangup', CallStatus: 'no-answer', Duration: '0' })),
    ).toMatchObject({ status: 'no-answer', durationSeconds: 0, providerCallId: REQUEST_UUID });
  });

  it('refuses an unknown status', () => {
    expect(() => vobiz.parseStatusWebhook(webhook({ CallStatus: 'nope' }))).toThrow(ProviderError);
  });

  it('asks Vobiz for the live call with its headers', async () => {
    server.answer({ status: 200, body: { call_status: 'ringing' } });
    await expect(vobiz.getCallStatus(REQUEST_UUID)).resolves.toMatchObject({ status: 'ringing' });
    const request = server.onlyRequest();
    expect(request.path).toBe(`${account}/Call/${REQUEST_UUID}/`);
    expectVobizAuth(request.headers);
  });

  it('hangs up through the request, then the call', async () => {
    server.answer({ status: 404, body: {} }, { status: 204 });
    await vobiz.hangup(REQUEST_UUID);
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      `DELETE ${account}/Request/${REQUEST_UUID}/`,
      `DELETE ${account}/Call/${REQUEST_UUID}/`,
    ]);
  });
});

describe('signature V3', () => {
  const url = 'https://example.com/vobiz/hangup';
  const nonce = '12345678901234567890';

  it('matches the vector computed from the documented formula', () => {
    expect(vobizV3Signature('my_auth_token', url, nonce)).toBe('VLg3xrVjeW8jsGWfZQw5uqSWv8MQ+NN64OAHd5e60LU=');
    expect(vobizV3Signature('my_auth_token', `${url}?run=1`, nonce)).toBe(
      'VLg3xrVjeW8jsGWfZQw5uqSWv8MQ+NN64OAHd5e60LU=',
    );
  });

  const request = (signature: string, signedNonce = nonce, requestUrl = url) => ({
    method: 'POST',
    url: requestUrl,
    headers: { 'x-vobiz-signature-v3': signature, 'x-vobiz-signature-v3-nonce': signedNonce },
    rawBody: 'CallUUID=abc&CallStatus=completed',
  });
  const withVectorToken = () =>
    vobizProvider.create({ auth_id: `MA${randomUUID()}`, auth_token: 'my_auth_token' }, { apiBaseUrl: server.url });

  it('accepts the documented signature, and the Plivo V3 form as a second candidate', async () => {
    expect(await withVectorToken().verifyWebhook(request('VLg3xrVjeW8jsGWfZQw5uqSWv8MQ+NN64OAHd5e60LU='))).toBe(true);
    const plivoForm = plivoV3Signature(
      'my_auth_token',
      'POST',
      url,
      [
        ['CallUUID', 'abc'],
        ['CallStatus', 'completed'],
      ],
      '22222222222222222222',
    );
    expect(await withVectorToken().verifyWebhook(request(plivoForm, '22222222222222222222'))).toBe(true);
  });

  it('refuses a replay, another URL, another nonce, the V2 form and missing headers', async () => {
    const provider = withVectorToken();
    expect(await provider.verifyWebhook(request('VLg3xrVjeW8jsGWfZQw5uqSWv8MQ+NN64OAHd5e60LU='))).toBe(true);
    expect(await provider.verifyWebhook(request('VLg3xrVjeW8jsGWfZQw5uqSWv8MQ+NN64OAHd5e60LU='))).toBe(false);
    expect(
      await withVectorToken().verifyWebhook(
        request('VLg3xrVjeW8jsGWfZQw5uqSWv8MQ+NN64OAHd5e60LU=', nonce, 'https://example.com/vobiz/other'),
      ),
    ).toBe(false);
    expect(
      await withVectorToken().verifyWebhook(
        request('VLg3xrVjeW8jsGWfZQw5uqSWv8MQ+NN64OAHd5e60LU=', '33333333333333333333'),
      ),
    ).toBe(false);
    expect(await withVectorToken().verifyWebhook(request('FYK26D7bvnxnsKDpL4qnK+1kL8KFiHrCh3NN0+ZT7bI='))).toBe(false);
    expect(await withVectorToken().verifyWebhook({ ...request(''), headers: {} })).toBe(false);
  });
});

describe('configureInbound', () => {
  const inboundUrl = 'https://sb.example.com/api/v1/telephony/vobiz/inbound';
  const binding = `${account}/numbers/919876543210/application`;

  it('binds the number to the Application, then sets its answer URL', async () => {
    server.answer({ status: 200, body: { message: 'bound' } }, { status: 202, body: { message: 'changed' } });
    await expect(vobiz.configureInbound('+919876543210', inboundUrl)).resolves.toMatchObject({ ok: true });
    const [bind, update] = server.requests;
    expect(`${bind?.method} ${bind?.path}`).toBe(`POST ${binding}`);
    expect(JSON.parse(bind?.body ?? '')).toEqual({ application_id: 'app-77' });
    expectVobizAuth(bind?.headers ?? {});
    expect(`${update?.method} ${update?.path}`).toBe(`POST ${account}/Application/app-77/`);
    expect(JSON.parse(update?.body ?? '')).toEqual({ answer_url: inboundUrl, answer_method: 'POST' });
  });

  it('detaches by deleting the binding; an absent binding is fine', async () => {
    server.answer({ status: 204 });
    await expect(vobiz.configureInbound('+919876543210', null)).resolves.toMatchObject({ ok: true });
    expect(`${server.onlyRequest().method} ${server.onlyRequest().path}`).toBe(`DELETE ${binding}`);
    server.reset();
    server.answer({ status: 404, body: { error: 'not found' } });
    await expect(vobiz.configureInbound('+919876543210', null)).resolves.toMatchObject({ ok: true });
  });

  it('reports errors without throwing, and needs application_id to attach', async () => {
    server.answer({ status: 500, body: { error: 'boom' } });
    await expect(vobiz.configureInbound('+919876543210', null)).resolves.toEqual({
      ok: false,
      message: 'Vobiz answered 500: boom',
    });
    await expect(create().configureInbound('+919876543210', inboundUrl)).resolves.toMatchObject({ ok: false });
  });

  it('does nothing for non-PSTN addresses', async () => {
    await expect(vobiz.configureInbound('1001', inboundUrl)).resolves.toMatchObject({ ok: true });
    expect(server.requests).toHaveLength(0);
  });
});
