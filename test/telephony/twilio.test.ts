import { createHash } from 'node:crypto';
import { ProviderError, type OriginateRequest, type TelephonyProvider } from '../../telephony/provider';
import { twilioProvider } from '../../telephony/providers/twilio';
import { twilioSignature } from '../../telephony/providers/twilio/signature';
import { TWILIO_STATUSES } from '../../telephony/providers/twilio/statuses';
import { FakeProviderServer } from './helpers/fake-provider-server';

const SID = 'ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const TOKEN = 'twilio_auth_token_1234';
const CALL_SID = 'CAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const basic = `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`;
const call: OriginateRequest = {
  runId: 42,
  to: '+14158675309',
  from: '+14158675308',
  idempotencyKey: 'call-7-42/attempt-1',
  statusCallbackUrl: 'https://sb.example.com/api/v1/telephony/twilio/status/42',
  answerUrl: 'https://sb.example.com/api/v1/telephony/twilio/answer/42',
  mediaStreamUrl: 'wss://sb.example.com/api/v1/telephony/twilio/media/42',
};
const callJson = (status: string, extra: Record<string, unknown> = {}) => ({
  sid: CALL_SID,
  account_sid: SID,
  status,
  direction: 'outbound-api',
  duration: null,
  answered_by: null,
  ...extra,
});

let server: FakeProviderServer;
let twilio: TelephonyProvider;

beforeAll(async () => {
  server = await FakeProviderServer.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  twilio = twilioProvider.create(
    { account_sid: SID, auth_token: TOKEN, amd_enabled: false },
    {
      apiBaseUrl: server.url,
      timeoutMs: 2_000,
    },
  );
});

describe('originate', () => {
  it('posts the documented form with Basic auth and the callback URLs, and keeps the sid', async () => {
    server.answer({ status: 201, body: callJson('queued') });

    await expect(twilio.originate(call)).resolves.toEqual({ providerCallId: CALL_SID });

    const request = server.onlyRequest();
    expect(request.method).toBe('POST');
    expect(request.path).toBe(`/2010-04-01/Accounts/${SID}/Calls.json`);
    expect(request.headers.authorization).toBe(basic);
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(request.body);
    expect(Object.fromEntries(form)).toEqual({
      To: '+14158675309',
      From: '+14158675308',
      Url: call.answerUrl,
      Method: 'POST',
      StatusCallback: call.statusCallbackUrl,
      StatusCallbackMethod: 'POST',
      StatusCallbackEvent: 'completed',
    });
    expect(form.getAll('StatusCallbackEvent')).toEqual(['initiated', 'ringing', 'answered', 'completed']);
  });

  /** The form fields of asynchronous answering-machine detection, its verdict posted to the status callback. */
  const asyncDetection = (machineDetection: string) => ({
    MachineDetection: machineDetection,
    AsyncAmd: 'true',
    AsyncAmdStatusCallback: call.statusCallbackUrl,
    AsyncAmdStatusCallbackMethod: 'POST',
  });

  it('asks for answering-machine detection when amd_enabled', async () => {
    const withAmd = twilioProvider.create(
      { account_sid: SID, auth_token: TOKEN, amd_enabled: true },
      {
        apiBaseUrl: server.url,
      },
    );
    server.answer({ status: 201, body: callJson('queued') });
    await withAmd.originate(call);
    const form = Object.fromEntries(new URLSearchParams(server.onlyRequest().body));
    expect(form).toMatchObject(asyncDetection('Enable'));
  });

  it("asks for detection of the greeting's end when the call leaves a message, even with amd_enabled off", async () => {
    server.answer({ status: 201, body: callJson('queued') });
    await twilio.originate({ ...call, machineDetection: 'message_end' });
    const form = Object.fromEntries(new URLSearchParams(server.onlyRequest().body));
    expect(form).toMatchObject(asyncDetection('DetectMessageEnd'));
  });

  it.each([
    [401, { code: 20003, message: 'Authenticate', status: 401 }, 'Twilio answered 401: Authenticate', false],
    [
      400,
      { code: 21211, message: "Invalid 'To' Phone Number", status: 400 },
      "Twilio answered 400: Invalid 'To' Phone Number",
      false,
    ],
    [429, { code: 20429, message: 'Too Many Requests', status: 429 }, 'Twilio answered 429: Too Many Requests', true],
    [503, { message: 'Service Unavailable' }, 'Twilio answered 503: Service Unavailable', true],
  ])('turns a %s answer into a ProviderError with the message', async (status, body, message, retryable) => {
    server.answer({ status, body });
    const error = await twilio.originate(call).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ message, status, retryable });
    expect((error as Error).message).not.toContain(TOKEN);
    expect((error as Error).message).not.toContain(SID);
  });

  it('times out as a retryable ProviderError', async () => {
    server.answer('hang');
    await expect(twilio.originate(call)).rejects.toMatchObject({
      message: 'Twilio did not answer within 2000 ms',
      retryable: true,
    });
  });

  it('reports an unreachable API as retryable', async () => {
    const unreachable = twilioProvider.create(
      { account_sid: SID, auth_token: TOKEN, amd_enabled: false },
      {
        apiBaseUrl: 'http://127.0.0.1:1',
      },
    );
    await expect(unreachable.originate(call)).rejects.toMatchObject({
      message: 'Twilio could not be reached',
      retryable: true,
    });
  });

  it('refuses to dial without a caller id', async () => {
    await expect(twilio.originate({ ...call, from: null })).rejects.toBeInstanceOf(ProviderError);
    expect(server.requests).toHaveLength(0);
  });
});

describe('status', () => {
  const webhook = (fields: Record<string, string>) => ({
    method: 'POST',
    url: call.statusCallbackUrl,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    rawBody: new URLSearchParams({ CallSid: CALL_SID, AccountSid: SID, ...fields }).toString(),
  });

  it.each(Object.entries(TWILIO_STATUSES))('parses CallStatus=%s as %s', (callStatus, expected) => {
    expect(twilio.parseStatusWebhook(webhook({ CallStatus: callStatus })).status).toBe(expected);
  });

  it('reads the duration of the final event', () => {
    expect(twilio.parseStatusWebhook(webhook({ CallStatus: 'completed', CallDuration: '42' }))).toMatchObject({
      status: 'completed',
      providerCallId: CALL_SID,
      durationSeconds: 42,
    });
  });

  it('reports a completed call a machine answered as voicemail', () => {
    expect(twilio.parseStatusWebhook(webhook({ CallStatus: 'completed', AnsweredBy: 'machine_end_beep' })).status).toBe(
      'voicemail',
    );
    expect(twilio.parseStatusWebhook(webhook({ CallStatus: 'completed', AnsweredBy: 'human' })).status).toBe(
      'completed',
    );
  });

  it.each([
    ['machine_end_beep', 'machine'],
    ['machine_end_silence', 'machine'],
    ['machine_end_other', 'machine'],
    ['machine_start', 'machine'],
    ['human', 'human'],
    ['fax', undefined],
    ['unknown', undefined],
  ])('reads the asynchronous AMD callback AnsweredBy=%s as an answer by %s', (answeredBy, expected) => {
    const event = twilio.parseStatusWebhook(webhook({ AnsweredBy: answeredBy, MachineDetectionDuration: '4200' }));
    expect(event).toMatchObject({ status: 'answered', providerCallId: CALL_SID });
    expect(event.answeredBy).toBe(expected);
  });

  it('reads AnsweredBy on an answered status event and on the Call resource', async () => {
    expect(
      twilio.parseStatusWebhook(webhook({ CallStatus: 'in-progress', AnsweredBy: 'machine_end_beep' })),
    ).toMatchObject({ status: 'answered', answeredBy: 'machine' });
    server.answer({ status: 200, body: callJson('in-progress', { answered_by: 'machine_end_silence' }) });
    await expect(twilio.getCallStatus(CALL_SID)).resolves.toMatchObject({ status: 'answered', answeredBy: 'machine' });
  });

  it('refuses an unknown CallStatus', () => {
    expect(() => twilio.parseStatusWebhook(webhook({ CallStatus: 'exploded' }))).toThrow(ProviderError);
  });

  it('reads the Call resource for reconciliation', async () => {
    server.answer({ status: 200, body: callJson('completed', { duration: '17' }) });
    await expect(twilio.getCallStatus(CALL_SID)).resolves.toMatchObject({
      status: 'completed',
      durationSeconds: 17,
      providerCallId: CALL_SID,
    });
    const request = server.onlyRequest();
    expect(request.method).toBe('GET');
    expect(request.path).toBe(`/2010-04-01/Accounts/${SID}/Calls/${CALL_SID}.json`);
    expect(request.headers.authorization).toBe(basic);
  });

  it('answers null for a call Twilio does not know', async () => {
    server.answer({ status: 404, body: { code: 20404, message: 'The requested resource was not found', status: 404 } });
    await expect(twilio.getCallStatus(CALL_SID)).resolves.toBeNull();
  });
});

describe('hangup', () => {
  it('posts Status=completed to the call', async () => {
    server.answer({ status: 200, body: callJson('completed') });
    await twilio.hangup(CALL_SID);
    const request = server.onlyRequest();
    expect(request.method).toBe('POST');
    expect(request.path).toBe(`/2010-04-01/Accounts/${SID}/Calls/${CALL_SID}.json`);
    expect(request.body).toBe('Status=completed');
  });

  it('reports a refusal', async () => {
    server.answer({ status: 500, body: { message: 'Internal error' } });
    await expect(twilio.hangup(CALL_SID)).rejects.toMatchObject({ status: 500, retryable: true });
  });
});

describe('signatures', () => {
  // twilio-node spec/validation.spec.js
  const vectorUrl = 'https://mycompany.com/myapp.php?foo=1&bar=2';
  const vectorParams: [string, string][] = [
    ['CallSid', 'CA1234567890ABCDE'],
    ['Caller', '+14158675309'],
    ['Digits', '1234'],
    ['From', '+14158675309'],
    ['To', '+18005551212'],
  ];
  const bodyHash = '0a1ff7634d9ab3b95db5c9a2dfe9416e41502b283a80c7cf19632632f96e6620';

  it.each([
    [vectorUrl, vectorParams, 'RSOYDt4T1cUTdK1PDd93/VVr8B8='],
    ['https://mycompany.com:443/myapp.php?foo=1&bar=2', vectorParams, 'kvajT1Ptam85bY51eRf/AJRuM3w='],
    ['http://mycompany.com:80/myapp.php?foo=1&bar=2', vectorParams, '0ZXoZLH/DfblKGATFgpif+LLRf4='],
    ['http://mycompany.com:1234/myapp.php?foo=1&bar=2', vectorParams, 'Zmvh+3yNM1Phv2jhDCwEM3q5ebU='],
    [`${vectorUrl}&Body=It's+amazing`, vectorParams, 'dsq4Ehbj6cs+KdTkpF5sSSplOWw='],
    [
      vectorUrl,
      [
        ['MessagingBinding.Address', '+1325xxxxxxx'],
        ['MessagingBinding.Address', '+1415xxxxxxx'],
      ],
      '83O6e2vORAoJHUNzJjDWN1jz+BA=',
    ],
    [
      vectorUrl,
      [
        ['MessagingBinding.Address', '+1415xxxxxxx'],
        ['MessagingBinding.Address', '+1325xxxxxxx'],
      ],
      '83O6e2vORAoJHUNzJjDWN1jz+BA=',
    ],
    [
      vectorUrl,
      [
        ['Sid', 'CA123'],
        ['SidAccount', 'AC123'],
        ['Digits', '5678'],
        ['Digits', '1234'],
        ['Digits', '1234'],
      ],
      'IK+Dwps556ElfBT0I3Rgjkr1wJU=',
    ],
    [`${vectorUrl}&bodySHA256=${bodyHash}`, [], 'a9nBmqA0ju/hNViExpshrM61xv4='],
    [`https://mycompany.com/myapp.php?bodySHA256=${bodyHash}`, [], 'y77kIzt2vzLz71DgmJGsen2scGs='],
  ] as [string, [string, string][], string][])('matches the official vector for %s', (url, params, expected) => {
    expect(twilioSignature('12345', url, params)).toBe(expected);
  });

  it('computes the official body hash', () => {
    expect(createHash('sha256').update('{"property": "value", "boolean": true}').digest('hex')).toBe(bodyHash);
  });

  const vectorProvider = () =>
    twilioProvider.create({ account_sid: SID, auth_token: '12345', amd_enabled: false }, { apiBaseUrl: server.url });
  const formRequest = (url: string, signature: string, params = vectorParams) => ({
    method: 'POST',
    url,
    headers: { 'x-twilio-signature': signature, 'content-type': 'application/x-www-form-urlencoded' },
    rawBody: new URLSearchParams(params).toString(),
  });

  it('accepts a valid form webhook, also when a proxy added or dropped the default port', () => {
    expect(vectorProvider().verifyWebhook(formRequest(vectorUrl, 'RSOYDt4T1cUTdK1PDd93/VVr8B8='))).toBe(true);
    expect(
      vectorProvider().verifyWebhook(
        formRequest('https://mycompany.com:443/myapp.php?foo=1&bar=2', 'RSOYDt4T1cUTdK1PDd93/VVr8B8='),
      ),
    ).toBe(true);
    expect(vectorProvider().verifyWebhook(formRequest(vectorUrl, 'kvajT1Ptam85bY51eRf/AJRuM3w='))).toBe(true);
  });

  it('refuses a tampered body, a wrong URL, a wrong token and a missing signature', () => {
    const tampered = vectorParams.map(([key, value]): [string, string] => [key, key === 'To' ? '+19005551212' : value]);
    expect(vectorProvider().verifyWebhook(formRequest(vectorUrl, 'RSOYDt4T1cUTdK1PDd93/VVr8B8=', tampered))).toBe(
      false,
    );
    expect(
      vectorProvider().verifyWebhook(
        formRequest('https://mycompany.com/other.php?foo=1&bar=2', 'RSOYDt4T1cUTdK1PDd93/VVr8B8='),
      ),
    ).toBe(false);
    expect(twilio.verifyWebhook(formRequest(vectorUrl, 'RSOYDt4T1cUTdK1PDd93/VVr8B8='))).toBe(false);
    expect(vectorProvider().verifyWebhook({ ...formRequest(vectorUrl, ''), headers: {} })).toBe(false);
  });

  it('checks JSON bodies against bodySHA256', () => {
    const url = `${vectorUrl}&bodySHA256=${bodyHash}`;
    const json = (rawBody: string) => ({
      method: 'POST',
      url,
      headers: { 'x-twilio-signature': 'a9nBmqA0ju/hNViExpshrM61xv4=', 'content-type': 'application/json' },
      rawBody,
    });
    expect(vectorProvider().verifyWebhook(json('{"property": "value", "boolean": true}'))).toBe(true);
    expect(vectorProvider().verifyWebhook(json('{"property": "value", "boolean": false}'))).toBe(false);
  });
});

describe('configureInbound', () => {
  const numbersPath = `/2010-04-01/Accounts/${SID}/IncomingPhoneNumbers.json`;
  const inboundUrl = 'https://sb.example.com/api/v1/telephony/twilio/inbound';

  it('finds the number, then points its VoiceUrl at Switchboard', async () => {
    server.answer(
      { status: 200, body: { incoming_phone_numbers: [{ sid: 'PN123', phone_number: '+14155550100' }] } },
      { status: 200, body: { sid: 'PN123' } },
    );
    await expect(twilio.configureInbound('+14155550100', inboundUrl)).resolves.toMatchObject({ ok: true });
    const [lookup, update] = server.requests;
    expect(lookup?.method).toBe('GET');
    expect(lookup?.path).toBe(numbersPath);
    expect(lookup?.query.get('PhoneNumber')).toBe('+14155550100');
    expect(update?.method).toBe('POST');
    expect(update?.path).toBe(`/2010-04-01/Accounts/${SID}/IncomingPhoneNumbers/PN123.json`);
    expect(update?.headers.authorization).toBe(basic);
    expect(Object.fromEntries(new URLSearchParams(update?.body))).toEqual({
      VoiceUrl: inboundUrl,
      VoiceMethod: 'POST',
    });
  });

  it('detaches with an empty VoiceUrl', async () => {
    server.answer({ status: 200, body: { incoming_phone_numbers: [{ sid: 'PN123' }] } }, { status: 200, body: {} });
    await expect(twilio.configureInbound('+14155550100', null)).resolves.toMatchObject({ ok: true });
    expect(Object.fromEntries(new URLSearchParams(server.requests[1]?.body))).toEqual({
      VoiceUrl: '',
      VoiceMethod: 'POST',
    });
  });

  it('treats a number absent from the account as detached, but not as attachable', async () => {
    server.answer({ status: 200, body: { incoming_phone_numbers: [] } });
    await expect(twilio.configureInbound('+14155550100', null)).resolves.toMatchObject({ ok: true });
    server.answer({ status: 200, body: { incoming_phone_numbers: [] } });
    await expect(twilio.configureInbound('+14155550100', inboundUrl)).resolves.toEqual({
      ok: false,
      message: '+14155550100 is not a phone number of this Twilio account.',
    });
  });

  it('reports a provider error without throwing', async () => {
    server.answer({ status: 401, body: { code: 20003, message: 'Authenticate', status: 401 } });
    await expect(twilio.configureInbound('+14155550100', inboundUrl)).resolves.toEqual({
      ok: false,
      message: 'Twilio answered 401: Authenticate',
    });
  });

  it('does nothing for SIP addresses', async () => {
    await expect(twilio.configureInbound('sip:agent@pbx.example.com', inboundUrl)).resolves.toMatchObject({ ok: true });
    expect(server.requests).toHaveLength(0);
  });
});

describe('readiness', () => {
  it('needs an active number', () => {
    expect(twilio.readiness([])).toEqual({ ready: false, reason: expect.stringContaining('active phone number') });
    expect(twilio.readiness([{ address: '+14155550100', isActive: false, isDefaultCallerId: true }]).ready).toBe(false);
    expect(twilio.readiness([{ address: '+14155550100', isActive: true, isDefaultCallerId: false }])).toEqual({
      ready: true,
    });
  });
});
