import { ProviderError, type OriginateRequest, type TelephonyProvider } from '../../telephony/provider';
import { ariProvider, type AriConfig } from '../../telephony/providers/ari';
import { channelIdFor } from '../../telephony/providers/ari/client';
import { FakeProviderServer, type RecordedRequest } from './helpers/fake-provider-server';

const config: AriConfig = {
  ari_endpoint: 'http://pbx.example.com:8088/ari',
  app_name: 'switchboard',
  app_password: 'ari-password-value',
  ws_client_name: '',
  dial_string_template: 'PJSIP/{number}@trunk',
  stasis_app_name: 'switchboard_ab12cd34ef56',
};
const call: OriginateRequest = {
  runId: 42,
  to: '+15551234567',
  from: '+15550001111',
  idempotencyKey: 'call-7-42/attempt-1',
  statusCallbackUrl: 'https://sb.example.com/api/v1/telephony/ari/status/42',
  answerUrl: 'https://sb.example.com/api/v1/telephony/ari/answer/42',
  mediaStreamUrl: 'wss://sb.example.com/api/v1/telephony/ari/media/42',
};
const channelId = channelIdFor(call.idempotencyKey);
const basic = `Basic ${Buffer.from('switchboard:ari-password-value').toString('base64')}`;

function channel(state: string, id = channelId) {
  return {
    id,
    name: 'PJSIP/trunk-00000001',
    state,
    caller: { name: '', number: '+15550001111' },
    connected: { name: '', number: '+15551234567' },
    accountcode: '',
    dialplan: { context: 'default', exten: 's', priority: 1, app_name: 'Stasis', app_data: 'switchboard_ab12cd34ef56' },
    creationtime: '2024-01-01T12:00:00.000+0000',
    language: 'en',
    channelvars: {},
  };
}

let server: FakeProviderServer;
let ari: TelephonyProvider;

beforeAll(async () => {
  server = await FakeProviderServer.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  ari = ariProvider.create(config, { apiBaseUrl: server.url, timeoutMs: 2_000 });
});

function originateQuery(request: RecordedRequest): Record<string, string> {
  return Object.fromEntries(request.query.entries());
}

describe('originate', () => {
  it('originates a channel named after the idempotency key, with every parameter in the query string', async () => {
    server.answer({ status: 200, body: channel('Down') });

    await expect(ari.originate(call)).resolves.toEqual({ providerCallId: channelId });

    const request = server.onlyRequest();
    expect([request.method, request.path]).toEqual(['POST', `/ari/channels/${channelId}`]);
    expect(channelId).toMatch(/^switchboard-[0-9a-f]{32}$/);
    expect(request.headers.authorization).toBe(basic);
    expect(originateQuery(request)).toEqual({
      endpoint: 'PJSIP/+15551234567@trunk',
      app: 'switchboard_ab12cd34ef56',
      appArgs: 'run_id=42',
      callerId: '+15550001111',
      timeout: '30',
    });
  });

  it.each([
    ['the default template', undefined, '+15551234567', 'PJSIP/+15551234567'],
    ['a local context template', 'Local/{number}@from-internal', '2001', 'Local/2001@from-internal'],
    ['a SIP dial string as it is', 'PJSIP/{number}@trunk', 'SIP/alice@pbx', 'SIP/alice@pbx'],
    ['a PJSIP dial string as it is', 'PJSIP/{number}@trunk', 'PJSIP/bob', 'PJSIP/bob'],
  ])('dials %s', async (_what, template, to, endpoint) => {
    const parsed = ariProvider.configSchema.parse({ ...config, dial_string_template: template });
    server.answer({ status: 200, body: channel('Down') });
    await ariProvider.create(parsed, { apiBaseUrl: server.url }).originate({ ...call, to });
    expect(server.onlyRequest().query.get('endpoint')).toBe(endpoint);
  });

  it('omits the caller id when there is none', async () => {
    server.answer({ status: 200, body: channel('Down') });
    await ari.originate({ ...call, from: null });
    expect(server.onlyRequest().query.has('callerId')).toBe(false);
  });

  it('answers a repeated originate (409: the channel exists) with the first call, dialling nothing new', async () => {
    server.answer({ status: 409, body: { message: 'Channel with given unique ID already exists' } });
    await expect(ari.originate(call)).resolves.toEqual({ providerCallId: channelId });
  });

  it.each([
    [400, false, { message: 'Invalid parameters for originating a channel.' }],
    [401, false, undefined],
    [500, true, { error: 'Allocation failed' }],
  ])('turns HTTP %i into a ProviderError (retryable: %s)', async (status, retryable, body) => {
    server.answer({ status, body });
    const error = await ari.originate(call).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status, retryable });
    expect((error as Error).message).not.toContain(config.app_password);
  });

  it('gives up on an Asterisk that does not answer, as a retryable error', async () => {
    server.answer('hang');
    await expect(ari.originate(call)).rejects.toMatchObject({ name: 'ProviderError', retryable: true });
  });

  it('needs the Stasis app, without calling Asterisk', async () => {
    const withoutApp = ariProvider.create({ ...config, stasis_app_name: undefined }, { apiBaseUrl: server.url });
    await expect(withoutApp.originate(call)).rejects.toThrow('stasis_app_name');
    expect(withoutApp.readiness([])).toEqual({ ready: false, reason: 'ARI stasis_app_name is not set' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('getCallStatus', () => {
  it.each([
    ['Down', 'initiated'],
    ['Ringing', 'ringing'],
    ['Ring', 'ringing'],
    ['Up', 'answered'],
    ['Busy', 'busy'],
  ])('maps channel state %s → %s', async (state, status) => {
    server.answer({ status: 200, body: channel(state) });
    await expect(ari.getCallStatus(channelId)).resolves.toMatchObject({ status, providerCallId: channelId });
    const request = server.onlyRequest();
    expect([request.method, request.path, request.headers.authorization]).toEqual([
      'GET',
      `/ari/channels/${channelId}`,
      basic,
    ]);
  });

  it('answers null for a channel Asterisk no longer knows, and passes other errors on', async () => {
    server.answer({ status: 404, body: { message: 'Channel not found' } }, { status: 401 });
    await expect(ari.getCallStatus(channelId)).resolves.toBeNull();
    await expect(ari.getCallStatus(channelId)).rejects.toMatchObject({ status: 401 });
  });
});

describe('hangup', () => {
  it('deletes the channel with a normal reason, and treats an unknown channel as hung up', async () => {
    server.answer({ status: 204 }, { status: 404, body: { message: 'Channel not found' } });
    await ari.hangup(channelId);
    await expect(ari.hangup(channelId)).resolves.toBeUndefined();
    const [first] = server.requests;
    expect([first!.method, first!.path, first!.query.get('reason')]).toEqual([
      'DELETE',
      `/ari/channels/${channelId}`,
      'normal',
    ]);
  });
});

describe('inbound, webhooks and readiness', () => {
  it('configures inbound as a no-op, since the dialplan routes calls into the Stasis app', async () => {
    await expect(ari.configureInbound('2001', 'https://sb.example.com/inbound')).resolves.toMatchObject({ ok: true });
    await expect(ari.configureInbound('2001', null)).resolves.toMatchObject({ ok: true });
    expect(server.requests).toHaveLength(0);
  });

  it('accepts no HTTP webhook: Asterisk events arrive over the authenticated WebSocket', () => {
    const request = {
      method: 'POST',
      url: call.statusCallbackUrl,
      headers: { authorization: basic },
      rawBody: JSON.stringify({ type: 'StasisStart', channel: channel('Up') }),
    };
    expect(ari.verifyWebhook(request)).toBe(false);
  });

  it('is ready without any phone number', () => {
    expect(ari.readiness([])).toEqual({ ready: true });
  });
});

describe('configuration', () => {
  it.each(['switchboard', 'media_connection1', 'sb-media.2', ''])('accepts the ws_client_name %j', (name) => {
    expect(ariProvider.configSchema.safeParse({ ...config, ws_client_name: name }).success).toBe(true);
  });

  // The name goes into the dial string WebSocket/<name>/c(ulaw)v(…), where these are separators.
  it.each(['media/1', 'a,b', 'v(x)', 'two words'])('refuses the ws_client_name %j', (name) => {
    expect(ariProvider.configSchema.safeParse({ ...config, ws_client_name: name }).success).toBe(false);
  });
});
