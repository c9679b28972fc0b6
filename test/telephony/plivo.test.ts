import { createHmac, randomUUID } from 'node:crypto';
import { ProviderError, type OriginateRequest, type TelephonyProvider } from '../../telephony/provider';
import { plivoProvider } from '../../telephony/providers/plivo';
import { plivoV3Signature } from '../../telephony/providers/plivo-compatible/signature-v3';
import { PLIVO_STATUSES } from '../../telephony/providers/plivo-compatible/statuses';
import { FakeProviderServer } from './helpers/fake-provider-server';

const AUTH_ID = 'MAXXXXXXXXXXXXXXXXXX';
const TOKEN = 'plivo_auth_token_5678';
const REQUEST_UUID = '9834029e-58b6-11e1-b8b7-a5bd0e4e126f';
const CALL_UUID = '3e82ae9d-2c78-4d85-b1a4-6eae7dbafb36';
const basic = `Basic ${Buffer.from(`${AUTH_ID}:${TOKEN}`).toString('base64')}`;
const account = `/v1/Account/${AUTH_ID}`;
const call: OriginateRequest = {
  runId: 42,
  to: '+14155550100',
  from: '+19792014278',
  idempotencyKey: 'call-7-42/attempt-1',
  statusCallbackUrl: 'https://sb.example.com/api/v1/telephony/plivo/status/42',
  answerUrl: 'https://sb.example.com/api/v1/telephony/plivo/answer/42',
  mediaStreamUrl: 'wss://sb.example.com/api/v1/telephony/plivo/media/42',
};

let server: FakeProviderServer;
let plivo: TelephonyProvider;
const create = (applicationId?: string) =>
  plivoProvider.create(
    { auth_id: AUTH_ID, auth_token: TOKEN, ...(applicationId ? { application_id: applicationId } : {}) },
    { apiBaseUrl: server.url, timeoutMs: 2_000 },
  );

beforeAll(async () => {
  server = await FakeProviderServer.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  plivo = create('27082215185108373');
});

describe('originate', () => {
  it('posts the documented JSON (numbers without +) with Basic auth and keeps request_uuid', async () => {
    server.answer({
      status: 201,
      body: { message: 'call fired', request_uuid: REQUEST_UUID, api_id: '97ceeb52-58b6-11e1-86da-77300b68f8bb' },
    });

    await expect(plivo.originate(call)).resolves.toEqual({ providerCallId: REQUEST_UUID });

    const request = server.onlyRequest();
    expect(request.method).toBe('POST');
    expect(request.path).toBe(`${account}/Call/`);
    expect(request.headers.authorization).toBe(basic);
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toEqual({
      from: '19792014278',
      to: '14155550100',
      answer_url: call.answerUrl,
      answer_method: 'POST',
      ring_url: call.statusCallbackUrl,
      ring_method: 'POST',
      hangup_url: call.statusCallbackUrl,
      hangup_method: 'POST',
    });
  });

  it.each([
    [400, 'invalid to', false],
    [401, 'authentication failed', false],
    [404, 'not found', false],
    [500, 'internal error', true],
  ])('turns a %s answer into a ProviderError', async (status, error, retryable) => {
    server.answer({ status, body: { api_id: 'x', error } });
    await expect(plivo.originate(call)).rejects.toMatchObject({
      message: `Plivo answered ${status}: ${error}`,
      status,
      retryable,
    });
  });

  it('times out as a retryable ProviderError', async () => {
    server.answer('hang');
    await expect(plivo.originate(call)).rejects.toMatchObject({ retryable: true, status: undefined });
  });
});

describe('status', () => {
  const webhook = (fields: Record<string, string>) => ({
    method: 'POST',
    url: call.statusCallbackUrl,
    headers: {},
    rawBody: new URLSearchParams({ CallUUID: CALL_UUID, RequestUUID: REQUEST_UUID, ...fields }).toString(),
  });

  it.each(Object.entries(PLIVO_STATUSES))('parses CallStatus=%s as %s', (callStatus, expected) => {
    expect(plivo.parseStatusWebhook(webhook({ CallStatus: callStatus })).status).toBe(expected);
  });

  it.each([
    ['Ring', 'ringing'],
    ['StartApp', 'answered'],
    ['Hangup', 'completed'],
  ])('falls back to Event=%s', (event, expected) => {
    expect(plivo.parseStatusWebhook(webhook({ Event: event })).status).toBe(expected);
  });

  it('reads the hangup callback: status, duration and the call leg id', () => {
    expect(
      plivo.parseStatusWebhook(
        webhook({ Event: 'Hangup', CallStatus: 'busy', Duration: '0', BillDuration: '0', HangupSource: 'Callee' }),
      ),
    ).toMatchObject({ status: 'busy', durationSeconds: 0, providerCallId: CALL_UUID });
    expect(
      plivo.parseStatusWebhook(webhook({ Event: 'Hangup', CallStatus: 'completed', Duration: '42' })),
    ).toMatchObject({ status: 'completed', durationSeconds: 42 });
  });

  it('refuses an unknown status', () => {
    expect(() => plivo.parseStatusWebhook(webhook({ CallStatus: 'weird' }))).toThrow(ProviderError);
  });

  it('asks for the live call first', async () => {
    server.answer({ status: 200, body: { call_status: 'in-progress', call_uuid: CALL_UUID } });
    await expect(plivo.getCallStatus(CALL_UUID)).resolves.toMatchObject({ status: 'answered' });
    const request = server.onlyRequest();
    expect(request.path).toBe(`${account}/Call/${CALL_UUID}/`);
    expect(request.query.get('status')).toBe('live');
    expect(request.headers.authorization).toBe(basic);
  });

  it.each([
    [4000, 42, 'completed'],
    [1000, 0, 'canceled'],
    [2000, 0, 'failed'],
    [3010, 0, 'failed'],
    [3010, 12, 'completed'],
  ])('classifies a finished call record with cause %s and %s s as %s', async (code, duration, expected) => {
    server.answer(
      { status: 404, body: { error: 'not found' } },
      {
        status: 200,
        body: { call_uuid: CALL_UUID, call_duration: duration, bill_duration: duration, hangup_cause_code: code },
      },
    );
    await expect(plivo.getCallStatus(CALL_UUID)).resolves.toMatchObject({
      status: expected,
      durationSeconds: duration,
    });
    expect(server.requests[1]?.query.get('status')).toBeNull();
  });

  it('answers initiated for a queued request and null for an unknown one', async () => {
    server.answer(
      { status: 404, body: {} },
      { status: 404, body: {} },
      { status: 200, body: { request_uuid: REQUEST_UUID } },
    );
    await expect(plivo.getCallStatus(REQUEST_UUID)).resolves.toMatchObject({ status: 'initiated' });
    expect(server.requests[2]?.query.get('status')).toBe('queued');
    server.answer({ status: 404, body: {} }, { status: 404, body: {} }, { status: 404, body: {} });
    await expect(plivo.getCallStatus('unknown')).resolves.toBeNull();
  });
});

describe('hangup', () => {
  it('cancels a request not yet answered', async () => {
    server.answer({ status: 204 });
    await plivo.hangup(REQUEST_UUID);
    const request = server.onlyRequest();
    expect(request.method).toBe('DELETE');
    expect(request.path).toBe(`${account}/Request/${REQUEST_UUID}/`);
  });

  it('hangs up an answered call', async () => {
    server.answer({ status: 404, body: { error: 'not found' } }, { status: 204 });
    await plivo.hangup(CALL_UUID);
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      `DELETE ${account}/Request/${CALL_UUID}/`,
      `DELETE ${account}/Call/${CALL_UUID}/`,
    ]);
  });

  it('reports a refusal', async () => {
    server.answer({ status: 404, body: {} }, { status: 401, body: { error: 'authentication failed' } });
    await expect(plivo.hangup(CALL_UUID)).rejects.toMatchObject({ status: 401 });
  });
});

describe('signature V3', () => {
  // plivo-go utils_test.go
  const token = 'Y2Q2ZDgxZmY5YWRiOTI5YmQ1Njg0MTAxZWIyOTc4';
  const nonce = '31627761595286130198';
  const uuid = '3e82ae9d-2c78-4d85-b1a4-6eae7dbafb36';
  const params: [string, string][] = Object.entries({
    Direction: 'outbound',
    From: '19792014278',
    ALegUUID: uuid,
    CallStatus: 'in-progress',
    BillRate: '0.002',
    ParentAuthID: 'MANWVLYTK4ZWU1YTY4QA',
    To: 'sip:PlivoSignature382029104058171078704104@phone-qa.voice.plivodev.com',
    ALegRequestUUID: uuid,
    CallUUID: uuid,
    RequestUUID: uuid,
    'SIP-H-To': '<sip:PlivoSignature382029104058171078704104@52.9.11.55;transport=udp>;tag=1',
    SessionStart: '2020-04-08 11:34:33.238707',
    Event: 'StartApp',
  });
  const withQuery = 'https://plivobin.non-prod.plivops.com/api/v1/validate_signature03.xml/?a=b&c=d';
  const withoutQuery = 'https://plivobin.non-prod.plivops.com/api/v1/validate_signature03.xml';

  it.each([
    [withQuery, 'POST', 'k7Pusd4OxCIjR5IfA9iedDNu/h/gbdYqdzG/MiYtd1c='],
    [withQuery, 'GET', 'UBq8jAtd32wR8EK9VgxbBn4n5rpI/l1H9iN4WfSEHFQ='],
    [withoutQuery, 'POST', 'iAjE5QqI37mbkYe4w3jTMudqEzbDufdqi7sYwTu64e0='],
    [withoutQuery, 'GET', 'i/MQsaQSAd6fiKhOh2qeeeLHZ9faldADSb3/7+Akfbc='],
  ])('matches the official vector for %s (%s)', (url, method, expected) => {
    expect(plivoV3Signature(token, method, url, params, nonce)).toBe(expected);
  });

  const vectorProvider = () =>
    plivoProvider.create({ auth_id: `MA${randomUUID()}`, auth_token: token }, { apiBaseUrl: server.url });
  const signed = (signature: string, signedNonce = nonce, rawBody = new URLSearchParams(params).toString()) => ({
    method: 'POST',
    url: withQuery,
    headers: { 'x-plivo-signature-v3': signature, 'x-plivo-signature-v3-nonce': signedNonce },
    rawBody,
  });

  it('accepts the official request, also among several signatures', async () => {
    expect(await vectorProvider().verifyWebhook(signed('k7Pusd4OxCIjR5IfA9iedDNu/h/gbdYqdzG/MiYtd1c='))).toBe(true);
    expect(
      await vectorProvider().verifyWebhook(
        signed('c29tZXRoaW5nIGVsc2U=, k7Pusd4OxCIjR5IfA9iedDNu/h/gbdYqdzG/MiYtd1c='),
      ),
    ).toBe(true);
  });

  it('refuses a replayed nonce', async () => {
    const provider = vectorProvider();
    expect(await provider.verifyWebhook(signed('k7Pusd4OxCIjR5IfA9iedDNu/h/gbdYqdzG/MiYtd1c='))).toBe(true);
    expect(await provider.verifyWebhook(signed('k7Pusd4OxCIjR5IfA9iedDNu/h/gbdYqdzG/MiYtd1c='))).toBe(false);
  });

  it('refuses a tampered body, another nonce, a wrong token and missing headers', async () => {
    const tampered = new URLSearchParams([...params, ['Duration', '999']]).toString();
    expect(
      await vectorProvider().verifyWebhook(signed('k7Pusd4OxCIjR5IfA9iedDNu/h/gbdYqdzG/MiYtd1c=', nonce, tampered)),
    ).toBe(false);
    expect(
      await vectorProvider().verifyWebhook(
        signed('k7Pusd4OxCIjR5IfA9iedDNu/h/gbdYqdzG/MiYtd1c=', '11111111111111111111'),
      ),
    ).toBe(false);
    expect(await plivo.verifyWebhook(signed('k7Pusd4OxCIjR5IfA9iedDNu/h/gbdYqdzG/MiYtd1c='))).toBe(false);
    expect(await vectorProvider().verifyWebhook({ ...signed(''), headers: {} })).toBe(false);
  });

  it('verifies a callback signed with our own token', async () => {
    const rawBody = new URLSearchParams({ CallUUID: CALL_UUID, CallStatus: 'completed', Event: 'Hangup' }).toString();
    const ownNonce = '12345678901234567890';
    const signature = plivoV3Signature(
      TOKEN,
      'POST',
      call.statusCallbackUrl,
      [...new URLSearchParams(rawBody)],
      ownNonce,
    );
    expect(
      await plivo.verifyWebhook({
        method: 'POST',
        url: call.statusCallbackUrl,
        headers: { 'x-plivo-signature-v3': signature, 'x-plivo-signature-v3-nonce': ownNonce },
        rawBody,
      }),
    ).toBe(true);
    // The V2 form (no `.` before the nonce) is not accepted as V3.
    const v2 = createHmac('sha256', TOKEN).update(`${call.statusCallbackUrl}${ownNonce}`).digest('base64');
    expect(
      await plivo.verifyWebhook({
        method: 'POST',
        url: call.statusCallbackUrl,
        headers: { 'x-plivo-signature-v3': v2, 'x-plivo-signature-v3-nonce': '99999999999999999999' },
        rawBody,
      }),
    ).toBe(false);
  });
});

describe('configureInbound', () => {
  const inboundUrl = 'https://sb.example.com/api/v1/telephony/plivo/inbound';

  it("points the Application's answer URL at Switchboard", async () => {
    server.answer({ status: 202, body: { message: 'changed', api_id: 'x' } });
    await expect(plivo.configureInbound('+14155550100', inboundUrl)).resolves.toMatchObject({ ok: true });
    const request = server.onlyRequest();
    expect(request.method).toBe('POST');
    expect(request.path).toBe(`${account}/Application/27082215185108373/`);
    expect(request.headers.authorization).toBe(basic);
    expect(JSON.parse(request.body)).toEqual({ answer_url: inboundUrl, answer_method: 'POST' });
  });

  it('detaches without a request: the answer URL is shared', async () => {
    await expect(plivo.configureInbound('+14155550100', null)).resolves.toMatchObject({ ok: true });
    expect(server.requests).toHaveLength(0);
  });

  it('needs application_id to attach', async () => {
    await expect(create().configureInbound('+14155550100', inboundUrl)).resolves.toMatchObject({ ok: false });
    expect(server.requests).toHaveLength(0);
  });

  it('reports a provider error without throwing', async () => {
    server.answer({ status: 404, body: { api_id: 'x', error: 'application not found' } });
    await expect(plivo.configureInbound('+14155550100', inboundUrl)).resolves.toEqual({
      ok: false,
      message: 'Plivo answered 404: application not found',
    });
  });
});
