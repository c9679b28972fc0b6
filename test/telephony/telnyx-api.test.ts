import { ProviderError, type OriginateRequest, type TelephonyProvider } from '../../telephony/provider';
import { telnyxProvider, type TelnyxConfig } from '../../telephony/providers/telnyx';
import { NO_CALLER_ID_REASON } from '../../telephony/readiness';
import { FakeProviderServer } from './helpers/fake-provider-server';

const config: TelnyxConfig = { api_key: 'KEY_test_secret_value', connection_id: '1293384261075731499' };
const call: OriginateRequest = {
  runId: 42,
  to: '+15551234567',
  from: '+15550001111',
  idempotencyKey: 'call-7-42/attempt-1',
  statusCallbackUrl: 'https://sb.example.com/api/v1/telephony/telnyx/status/42',
  answerUrl: 'https://sb.example.com/api/v1/telephony/telnyx/answer/42',
  mediaStreamUrl: 'wss://sb.example.com/api/v1/telephony/telnyx/media/42',
};
const callControlId = 'v3:MdI91X4lWFEs7IgbBEOT9M4AigoY08M0WWZFISt1Yw2axZ_IiE4pqg';
const authFailed = {
  errors: [
    { code: '10009', title: 'Authentication failed', detail: 'The required authentication headers were invalid.' },
  ],
};

let server: FakeProviderServer;
let telnyx: TelephonyProvider;

beforeAll(async () => {
  server = await FakeProviderServer.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  telnyx = telnyxProvider.create(config, { apiBaseUrl: server.url, timeoutMs: 2_000 });
});

describe('originate', () => {
  it('dials with the API key, the connection, the callback and media URLs and the idempotency key', async () => {
    server.answer({
      status: 200,
      body: {
        data: { call_control_id: callControlId, call_leg_id: 'leg', call_session_id: 'session', is_alive: false },
      },
    });

    await expect(telnyx.originate(call)).resolves.toEqual({ providerCallId: callControlId });

    const request = server.onlyRequest();
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v2/calls');
    expect(request.headers.authorization).toBe('Bearer KEY_test_secret_value');
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toEqual({
      connection_id: '1293384261075731499',
      to: '+15551234567',
      from: '+15550001111',
      webhook_url: call.statusCallbackUrl,
      webhook_url_method: 'POST',
      stream_url: call.mediaStreamUrl,
      stream_track: 'inbound_track',
      stream_bidirectional_mode: 'rtp',
      stream_bidirectional_codec: 'PCMU',
      command_id: 'call-7-42/attempt-1',
    });
  });

  it.each([
    [401, false, authFailed],
    [422, false, { errors: [{ code: '10016', title: 'Phone number must be in +E.164 format' }] }],
    [429, true, { errors: [{ code: '10011', title: 'Too many requests' }] }],
    [500, true, { errors: [{ code: '10007', title: 'Unexpected error' }] }],
    [503, true, undefined],
  ])('turns HTTP %i into a ProviderError (retryable: %s)', async (status, retryable, body) => {
    server.answer({ status, body });
    const error = await telnyx.originate(call).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status, retryable });
    expect((error as Error).message).not.toContain(config.api_key);
  });

  it("quotes Telnyx's own error text", async () => {
    server.answer({
      status: 422,
      body: { errors: [{ code: '10016', title: 'Phone number must be in +E.164 format' }] },
    });
    await expect(telnyx.originate(call)).rejects.toThrow('Phone number must be in +E.164 format');
  });

  it('gives up on a provider that does not answer, as a retryable error', async () => {
    server.answer('hang');
    await expect(telnyx.originate(call)).rejects.toMatchObject({ name: 'ProviderError', retryable: true });
  });

  it('refuses to dial without a Call Control App or a caller id, without calling Telnyx', async () => {
    const withoutConnection = telnyxProvider.create({ api_key: 'k' }, { apiBaseUrl: server.url });
    await expect(withoutConnection.originate(call)).rejects.toThrow('connection_id');
    await expect(telnyx.originate({ ...call, from: null })).rejects.toThrow('caller id');
    expect(server.requests).toHaveLength(0);
  });
});

describe('getCallStatus', () => {
  it('reads a live call as initiated and an ended one as completed with its duration', async () => {
    server.answer(
      { status: 200, body: { data: { call_control_id: callControlId, is_alive: true, record_type: 'call' } } },
      { status: 200, body: { data: { call_control_id: callControlId, is_alive: false, call_duration: 50 } } },
    );

    await expect(telnyx.getCallStatus(callControlId)).resolves.toMatchObject({ status: 'initiated' });
    await expect(telnyx.getCallStatus(callControlId)).resolves.toMatchObject({
      status: 'completed',
      providerCallId: callControlId,
      durationSeconds: 50,
    });
    expect(server.requests.map((request) => [request.method, request.path])).toEqual([
      ['GET', `/v2/calls/${encodeURIComponent(callControlId)}`],
      ['GET', `/v2/calls/${encodeURIComponent(callControlId)}`],
    ]);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer KEY_test_secret_value');
  });

  it('answers null for a call Telnyx does not know', async () => {
    server.answer({ status: 404, body: { errors: [{ code: '90015', title: 'Resource not found' }] } });
    await expect(telnyx.getCallStatus('v3:unknown')).resolves.toBeNull();
  });

  it('passes other errors on', async () => {
    server.answer({ status: 401, body: authFailed });
    await expect(telnyx.getCallStatus(callControlId)).rejects.toMatchObject({ status: 401, retryable: false });
  });
});

describe('hangup', () => {
  it('posts the hangup action', async () => {
    server.answer({ status: 200, body: { data: { result: 'ok' } } });
    await telnyx.hangup(callControlId);
    const request = server.onlyRequest();
    expect([request.method, request.path]).toEqual([
      'POST',
      `/v2/calls/${encodeURIComponent(callControlId)}/actions/hangup`,
    ]);
    expect(JSON.parse(request.body)).toEqual({});
  });

  it('treats a call Telnyx no longer knows as hung up, and other errors as errors', async () => {
    server.answer({ status: 404, body: { errors: [{ title: 'Resource not found' }] } }, { status: 502 });
    await expect(telnyx.hangup(callControlId)).resolves.toBeUndefined();
    await expect(telnyx.hangup(callControlId)).rejects.toMatchObject({ status: 502, retryable: true });
  });
});

describe('configureInbound', () => {
  const inboundUrl = 'https://sb.example.com/api/v1/telephony/telnyx/inbound';
  const applicationPath = '/v2/call_control_applications/1293384261075731499';

  it('attaches by reading the application and patching its webhook URL', async () => {
    server.answer(
      { status: 200, body: { data: { id: '1293384261075731499', application_name: 'switchboard' } } },
      { status: 200, body: { data: { id: '1293384261075731499', application_name: 'switchboard' } } },
    );

    await expect(telnyx.configureInbound('+15550001111', inboundUrl)).resolves.toMatchObject({ ok: true });

    const [read, patch] = server.requests;
    expect([read!.method, read!.path]).toEqual(['GET', applicationPath]);
    expect([patch!.method, patch!.path]).toEqual(['PATCH', applicationPath]);
    expect(patch!.headers.authorization).toBe('Bearer KEY_test_secret_value');
    expect(JSON.parse(patch!.body)).toEqual({ application_name: 'switchboard', webhook_event_url: inboundUrl });
  });

  it("reports the provider's refusal without throwing", async () => {
    server.answer({ status: 401, body: authFailed });
    const sync = await telnyx.configureInbound('+15550001111', inboundUrl);
    expect(sync).toEqual({ ok: false, message: expect.stringContaining('401') as unknown });
    expect(sync.message).not.toContain(config.api_key);
  });

  it('detaches as a no-op, since the webhook is shared by the whole application', async () => {
    await expect(telnyx.configureInbound('+15550001111', null)).resolves.toMatchObject({ ok: true });
    expect(server.requests).toHaveLength(0);
  });
});

describe('readiness', () => {
  const active = { address: '+15550001111', isActive: true, isDefaultCallerId: true };

  it('needs an active number and a Call Control App', () => {
    expect(telnyx.readiness([active])).toEqual({ ready: true });
    expect(telnyx.readiness([{ ...active, isActive: false }])).toEqual({
      ready: false,
      reason: NO_CALLER_ID_REASON,
    });
    expect(telnyxProvider.create({ api_key: 'k' }).readiness([active])).toMatchObject({ ready: false });
  });
});
