import { ProviderError, type OriginateRequest, type TelephonyProvider } from '../../telephony/provider';
import { cloudonixProvider, type CloudonixConfig } from '../../telephony/providers/cloudonix';
import { NO_CALLER_ID_REASON } from '../../telephony/readiness';
import { FakeProviderServer } from './helpers/fake-provider-server';

const config: CloudonixConfig = {
  bearer_token: 'XI-domain-api-key-value',
  domain_id: 'acme',
  application_name: 'switchboard-inbound',
};
const call: OriginateRequest = {
  runId: 42,
  to: '+15551234567',
  from: '+15550001111',
  idempotencyKey: 'call-7-42/attempt-1',
  statusCallbackUrl: 'https://sb.example.com/api/v1/telephony/cloudonix/status/42',
  answerUrl: 'https://sb.example.com/api/v1/telephony/cloudonix/answer/42',
  mediaStreamUrl: 'wss://sb.example.com/api/v1/telephony/cloudonix/media/42?token=a&b=c',
};
const token = '16a7294c989b11e7b3d32b9edb8660c7';
const sessionPath = `/calls/acme.cloudonix.net/sessions/${token}`;

let server: FakeProviderServer;
let cloudonix: TelephonyProvider;

beforeAll(async () => {
  server = await FakeProviderServer.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  cloudonix = cloudonixProvider.create(config, { apiBaseUrl: server.url, timeoutMs: 2_000 });
});

describe('originate', () => {
  it('dials through the domain with the API key, the caller id and an inline stream document', async () => {
    server.answer({
      status: 200,
      body: { domainId: 3, subscriberId: 372, destination: '+15551234567', direction: 'outbound-api', token },
    });

    await expect(cloudonix.originate(call)).resolves.toEqual({ providerCallId: token });

    const request = server.onlyRequest();
    expect([request.method, request.path]).toEqual(['POST', '/calls/acme.cloudonix.net/application']);
    expect(request.headers.authorization).toBe('Bearer XI-domain-api-key-value');
    expect(JSON.parse(request.body)).toEqual({
      destination: '+15551234567',
      'caller-id': '+15550001111',
      cxml:
        '<Response><Connect><Stream url="wss://sb.example.com/api/v1/telephony/cloudonix/media/42?token=a&#38;b=c"/>' +
        '</Connect><Hangup/></Response>',
    });
  });

  it('keeps a full domain name as it is', async () => {
    const fullDomain = cloudonixProvider.create({ ...config, domain_id: 'voice.acme.com' }, { apiBaseUrl: server.url });
    server.answer({ status: 200, body: { token } });
    await fullDomain.originate(call);
    expect(server.onlyRequest().path).toBe('/calls/voice.acme.com/application');
  });

  it.each([
    [401, false, { message: 'Unauthorized' }],
    [404, false, { message: 'Domain not found' }],
    [500, true, { message: 'Internal error' }],
    [502, true, undefined],
  ])('turns HTTP %i into a ProviderError (retryable: %s)', async (status, retryable, body) => {
    server.answer({ status, body });
    const error = await cloudonix.originate(call).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status, retryable });
    expect((error as Error).message).not.toContain(config.bearer_token);
  });

  it('gives up on a provider that does not answer, as a retryable error', async () => {
    server.answer('hang');
    await expect(cloudonix.originate(call)).rejects.toMatchObject({ name: 'ProviderError', retryable: true });
  });

  it('needs a caller id, without calling Cloudonix', async () => {
    await expect(cloudonix.originate({ ...call, from: null })).rejects.toThrow('caller id');
    expect(server.requests).toHaveLength(0);
  });
});

describe('getCallStatus', () => {
  const session = {
    domainId: 3,
    domain: 'acme.cloudonix.net',
    subscriberId: 372,
    destination: '+15551234567',
    callerId: '+15550001111',
    direction: 'outbound-api',
    token,
    callStartTime: 1700000000000,
  };

  it.each([
    ['a ringing session', {}, { status: 'initiated' }],
    ['an answered session', { callAnswerTime: 1700000005000 }, { status: 'answered' }],
    [
      'an ended session, with the talk time',
      { callAnswerTime: 1700000005000, callEndTime: 1700000047400 },
      { status: 'completed', durationSeconds: 42 },
    ],
    [
      'an ended session with ISO times',
      { answerTime: '2023-11-14T22:13:25.000Z', endTime: '2023-11-14T22:14:25.000Z' },
      { status: 'completed', durationSeconds: 60 },
    ],
    ['a session that ended unanswered', { callEndTime: 1700000030000 }, { status: 'failed', durationSeconds: 0 }],
  ])('reads %s', async (_what, times, expected) => {
    server.answer({ status: 200, body: { ...session, ...times } });
    await expect(cloudonix.getCallStatus(token)).resolves.toMatchObject({ ...expected, providerCallId: token });
    const request = server.onlyRequest();
    expect([request.method, request.path, request.headers.authorization]).toEqual([
      'GET',
      sessionPath,
      'Bearer XI-domain-api-key-value',
    ]);
  });

  it('answers null for a session Cloudonix does not know, and passes other errors on', async () => {
    server.answer({ status: 404, body: { message: 'Not found' } }, { status: 401 });
    await expect(cloudonix.getCallStatus(token)).resolves.toBeNull();
    await expect(cloudonix.getCallStatus(token)).rejects.toMatchObject({ status: 401 });
  });
});

describe('hangup', () => {
  it('deletes the session, and treats an unknown one as hung up', async () => {
    server.answer({ status: 204 }, { status: 404 });
    await cloudonix.hangup(token);
    await expect(cloudonix.hangup(token)).resolves.toBeUndefined();
    expect(server.requests.map((request) => [request.method, request.path])).toEqual([
      ['DELETE', sessionPath],
      ['DELETE', sessionPath],
    ]);
  });

  it('passes a server error on as retryable', async () => {
    server.answer({ status: 500 });
    await expect(cloudonix.hangup(token)).rejects.toMatchObject({ status: 500, retryable: true });
  });
});

describe('configureInbound', () => {
  const inboundUrl = 'https://sb.example.com/api/v1/telephony/cloudonix/inbound';

  it("attaches by patching the domain's Voice Application", async () => {
    server.answer({ status: 200, body: { name: 'switchboard-inbound', url: inboundUrl } });
    await expect(cloudonix.configureInbound('+15550001111', inboundUrl)).resolves.toMatchObject({ ok: true });
    const request = server.onlyRequest();
    expect([request.method, request.path]).toEqual([
      'PATCH',
      '/customers/self/domains/acme.cloudonix.net/applications/switchboard-inbound',
    ]);
    expect(request.headers.authorization).toBe('Bearer XI-domain-api-key-value');
    expect(JSON.parse(request.body)).toEqual({ url: inboundUrl, method: 'POST' });
  });

  it("reports the provider's refusal, or a missing application, without throwing", async () => {
    server.answer({ status: 401, body: { message: 'Unauthorized' } });
    await expect(cloudonix.configureInbound('+15550001111', inboundUrl)).resolves.toEqual({
      ok: false,
      message: 'Cloudonix answered 401: Unauthorized',
    });
    const withoutApplication = cloudonixProvider.create({ ...config, application_name: undefined });
    await expect(withoutApplication.configureInbound('+15550001111', inboundUrl)).resolves.toEqual({
      ok: false,
      message: 'Cloudonix application_name is not set',
    });
  });

  it('detaches as a no-op, since the application is shared by the domain', async () => {
    await expect(cloudonix.configureInbound('+15550001111', null)).resolves.toMatchObject({ ok: true });
    expect(server.requests).toHaveLength(0);
  });
});

describe('readiness', () => {
  it('needs an active number for the caller id', () => {
    const number = { address: '+15550001111', isActive: true, isDefaultCallerId: false };
    expect(cloudonix.readiness([number])).toEqual({ ready: true });
    expect(cloudonix.readiness([{ ...number, isActive: false }])).toEqual({
      ready: false,
      reason: NO_CALLER_ID_REASON,
    });
  });
});
