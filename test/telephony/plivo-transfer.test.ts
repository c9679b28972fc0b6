import { ProviderError, type StartTransferRequest, type TelephonyProvider } from '../../telephony/provider';
import { plivoProvider } from '../../telephony/providers/plivo';
import { vobizProvider } from '../../telephony/providers/vobiz';
import { FakeProviderServer } from './helpers/fake-provider-server';

const AUTH_ID = 'MAXXXXXXXXXXXXXXXXXX';
const TOKEN = 'plivo_auth_token_5678';
const CALL_UUID = '3e82ae9d-2c78-4d85-b1a4-6eae7dbafb36';
const B_LEG_UUID = '0df857fe-2ffb-4f8f-818f-c2161eaf4933';
const CALLBACK = 'https://sb.example.com/api/v1/telephony/plivo/transfer/42';

const request = (overrides: Partial<StartTransferRequest> = {}): StartTransferRequest => ({
  runId: 42,
  providerCallId: CALL_UUID,
  destination: '+14155550999',
  from: '+19792014278',
  mode: 'blind',
  announcement: null,
  holdAudioUrl: 'https://sb.example.com/api/v1/telephony/hold-audio.wav',
  holdAudioMp3Url: 'https://sb.example.com/api/v1/telephony/hold-audio.mp3',
  ringTimeoutSeconds: 25,
  idempotencyKey: 'call-42:transfer-1',
  transferCallbackUrl: CALLBACK,
  answerUrl: 'https://sb.example.com/api/v1/telephony/plivo/answer/42',
  mediaStreamUrl: 'wss://sb.example.com/api/v1/telephony/plivo/media/42?token=abc',
  ...overrides,
});

const caller = {
  runId: 42,
  providerCallId: CALL_UUID,
  mediaStreamUrl: 'wss://sb.example.com/api/v1/telephony/plivo/media/42?token=fresh',
  statusCallbackUrl: 'https://sb.example.com/api/v1/telephony/plivo/status/42',
};

/** A form POST from the provider to `url` (signatures are checked by the route, not here). */
const post = (url: string, form: Record<string, string> = {}) => ({
  method: 'POST',
  url,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  rawBody: new URLSearchParams(form).toString(),
});

let server: FakeProviderServer;
beforeAll(async () => {
  server = await FakeProviderServer.start();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const dialects = [
  {
    name: 'Plivo',
    create: () =>
      plivoProvider.create({ auth_id: AUTH_ID, auth_token: TOKEN }, { apiBaseUrl: server.url, timeoutMs: 2_000 }),
    callPath: `/v1/Account/${AUTH_ID}/Call/${CALL_UUID}/`,
    authHeaders: { authorization: `Basic ${Buffer.from(`${AUTH_ID}:${TOKEN}`).toString('base64')}` },
    modes: plivoProvider.transferModes,
  },
  {
    name: 'Vobiz',
    create: () =>
      vobizProvider.create({ auth_id: AUTH_ID, auth_token: TOKEN }, { apiBaseUrl: server.url, timeoutMs: 2_000 }),
    callPath: `/api/v1/Account/${AUTH_ID}/Call/${CALL_UUID}/`,
    authHeaders: { 'x-auth-id': AUTH_ID, 'x-auth-token': TOKEN },
    modes: vobizProvider.transferModes,
  },
];

describe.each(dialects)('$name call transfer', ({ create, callPath, authHeaders, modes }) => {
  let provider: TelephonyProvider;
  const transfer = () => provider.transfer!;
  beforeEach(() => {
    provider = create();
  });

  it('offers blind and warm transfers', () => {
    expect(modes).toEqual(['blind', 'warm']);
  });

  /** Starts a transfer against the fake API; the aleg_url it sent, parsed. */
  const started = async (overrides: Partial<StartTransferRequest> = {}) => {
    server.answer({
      status: 202,
      body: { message: 'call transferred', api_id: '97ceeb52-58b6-11e1-86da-77300b68f8bb' },
    });
    const { transferId } = await transfer().start(request(overrides));
    const sent = server.onlyRequest();
    const body = JSON.parse(sent.body) as Record<string, string>;
    return { transferId, sent, body, alegUrl: new URL(body.aleg_url!) };
  };

  it('moves the caller leg to the dial document with the call transfer API (legs=aleg)', async () => {
    const { transferId, sent, body, alegUrl } = await started();

    expect(sent.method).toBe('POST');
    expect(sent.path).toBe(callPath);
    for (const [name, value] of Object.entries(authHeaders)) expect(sent.headers[name]).toBe(value);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(body).toEqual({ legs: 'aleg', aleg_url: expect.any(String), aleg_method: 'POST' });
    expect(`${alegUrl.origin}${alegUrl.pathname}`).toBe(CALLBACK);
    expect(Object.fromEntries(alegUrl.searchParams)).toEqual({
      transfer: transferId,
      step: 'dial',
      to: '+14155550999',
      from: '+19792014278',
      timeout: '25',
      hold: 'https://sb.example.com/api/v1/telephony/hold-audio.wav',
    });
  });

  it('gives the same tool call the same transfer id', async () => {
    const first = await started();
    server.reset();
    const again = await started();
    expect(again.transferId).toBe(first.transferId);
    server.reset();
    const other = await started({ idempotencyKey: 'call-42:transfer-2' });
    expect(other.transferId).not.toBe(first.transferId);
  });

  it('answers the dial fetch with a <Dial> ringing for the ring timeout, hold music and callbacks', async () => {
    const { transferId, alegUrl } = await started();
    const fetch = post(alegUrl.toString(), { CallUUID: CALL_UUID, Event: 'Redirect', CallStatus: 'in-progress' });

    expect(transfer().parseWebhook(fetch)).toMatchObject({ status: 'ringing', transferId, providerCallId: CALL_UUID });
    const reply = transfer().markup!(fetch, caller);
    expect(reply?.contentType).toBe('text/xml');
    const stepUrl = (step: string, extra: Record<string, string> = {}) =>
      `${CALLBACK}?${new URLSearchParams({ transfer: transferId, step, ...extra }).toString()}`.replace(/&/g, '&#38;');
    expect(reply?.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Dial callerId="+19792014278" timeout="25" ' +
        `action="${stepUrl('result')}" method="POST" redirect="true" ` +
        `callbackUrl="${stepUrl('events')}" callbackMethod="POST" ` +
        `dialMusic="${stepUrl('hold', { hold: 'https://sb.example.com/api/v1/telephony/hold-audio.wav' })}">` +
        '<Number>+14155550999</Number></Dial></Response>',
    );
  });

  it('dials a SIP destination as a <User>', async () => {
    const { alegUrl } = await started({ destination: 'sip:desk@pbx.example.com' });
    const reply = transfer().markup!(post(alegUrl.toString()), caller);
    expect(reply?.body).toContain('<User>sip:desk@pbx.example.com</User></Dial>');
  });

  it('plays the hold audio in a loop while the destination rings', async () => {
    const { transferId, alegUrl } = await started();
    const dial = transfer().markup!(post(alegUrl.toString()), caller)!.body;
    const holdUrl = /dialMusic="([^"]+)"/.exec(dial)![1]!.replace(/&#38;/g, '&');
    const hold = post(holdUrl, { CallUUID: CALL_UUID });

    expect(transfer().parseWebhook(hold)).toMatchObject({ status: 'ringing', transferId });
    expect(transfer().markup!(hold, caller)?.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response>' +
        '<Play loop="0">https://sb.example.com/api/v1/telephony/hold-audio.wav</Play></Response>',
    );
  });

  it('warm: speaks the announcement to the person as the confirm sound before joining', async () => {
    const announcement = 'Caller Ana wants a quote for 3 rooms & a hallway.';
    const { transferId, alegUrl } = await started({ mode: 'warm', announcement });
    expect(alegUrl.searchParams.get('announce')).toBe(announcement);
    const dial = transfer().markup!(post(alegUrl.toString()), caller)!.body;
    const confirmUrl = /confirmSound="([^"]+)"/.exec(dial)![1]!.replace(/&#38;/g, '&');
    expect(dial).not.toContain('confirmKey');
    const fetched = post(confirmUrl, { CallUUID: B_LEG_UUID });

    expect(transfer().parseWebhook(fetched)).toMatchObject({ status: 'answered', transferId });
    expect(transfer().markup!(fetched, caller)?.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response>' +
        '<Speak>Caller Ana wants a quote for 3 rooms &#38; a hallway.</Speak></Response>',
    );
  });

  it('blind: no announcement even when one is given', async () => {
    const { alegUrl } = await started({ mode: 'blind', announcement: 'ignored' });
    expect(alegUrl.searchParams.has('announce')).toBe(false);
  });

  describe('events at the dial callback', () => {
    const eventsUrl = (transferId: string) =>
      `${CALLBACK}?${new URLSearchParams({ transfer: transferId, step: 'events' }).toString()}`;
    it.each([
      ['answer', 'DialAnswer', 'answered'],
      ['connected', 'DialConnected', 'answered'],
      ['hangup', 'DialHangup', 'ringing'],
      ['digits', 'DialDigitsMatch', 'ringing'],
    ])('DialAction=%s (%s) is %s', async (action, event, status) => {
      const { transferId } = await started();
      const webhook = post(eventsUrl(transferId), {
        Event: event,
        DialAction: action,
        DialALegUUID: CALL_UUID,
        DialBLegUUID: B_LEG_UUID,
        DialBLegStatus: action,
        CallUUID: CALL_UUID,
      });
      expect(transfer().parseWebhook(webhook)).toMatchObject({ status, transferId, providerCallId: CALL_UUID });
      expect(transfer().markup!(webhook, caller)).toBeNull();
    });
  });

  describe('the dial result (action URL)', () => {
    const resultUrl = (transferId: string) =>
      `${CALLBACK}?${new URLSearchParams({ transfer: transferId, step: 'result' }).toString()}`;
    it.each([
      ['completed', 'answered'],
      ['busy', 'busy'],
      ['no-answer', 'no-answer'],
      ['timeout', 'no-answer'],
      ['failed', 'failed'],
      ['cancel', 'canceled'],
    ])('DialStatus=%s is %s', async (dialStatus, status) => {
      const { transferId } = await started();
      const webhook = post(resultUrl(transferId), {
        DialStatus: dialStatus,
        DialALegUUID: CALL_UUID,
        DialBLegUUID: dialStatus === 'completed' ? B_LEG_UUID : '',
        DialHangupCause: dialStatus === 'completed' ? 'NORMAL_CLEARING' : 'USER_BUSY',
        DialRingStatus: 'true',
      });
      expect(transfer().parseWebhook(webhook)).toMatchObject({ status, transferId, providerCallId: CALL_UUID });
    });

    it('hangs up once a joined call is over', async () => {
      const { transferId } = await started();
      const reply = transfer().markup!(post(resultUrl(transferId), { DialStatus: 'completed' }), caller);
      expect(reply?.body).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>');
    });

    it('streams the caller back to the agent when the dial did not connect', async () => {
      const { transferId } = await started();
      const reply = transfer().markup!(post(resultUrl(transferId), { DialStatus: 'busy' }), caller);
      expect(reply?.body).toContain('<Stream bidirectional="true" keepCallAlive="true"');
      expect(reply?.body).toContain('>wss://sb.example.com/api/v1/telephony/plivo/media/42?token=fresh</Stream>');
    });

    it('refuses an unknown DialStatus', async () => {
      const { transferId } = await started();
      expect(() => transfer().parseWebhook(post(resultUrl(transferId), { DialStatus: 'exploded' }))).toThrow(
        ProviderError,
      );
    });
  });

  it('refuses a request that is not a transfer callback', () => {
    expect(() => transfer().parseWebhook(post(CALLBACK, { CallUUID: CALL_UUID }))).toThrow(ProviderError);
    expect(() => transfer().parseWebhook(post(`${CALLBACK}?transfer=x&step=other`))).toThrow(ProviderError);
  });

  it('cancel moves the caller leg to its answer URL, which ends the dial', async () => {
    const { transferId } = await started();
    server.reset();
    server.answer({ status: 202, body: { message: 'call transferred', api_id: 'a1' } });

    await transfer().cancel(CALL_UUID, transferId);

    const sent = server.onlyRequest();
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe(callPath);
    expect(JSON.parse(sent.body)).toEqual({
      legs: 'aleg',
      aleg_url: 'https://sb.example.com/api/v1/telephony/plivo/answer/42',
      aleg_method: 'POST',
    });
  });

  it('a refused transfer is a ProviderError with the provider status', async () => {
    server.answer({ status: 404, body: { api_id: 'x', error: 'call not found' } });
    await expect(transfer().start(request())).rejects.toMatchObject({ status: 404, retryable: false });
  });

  it('looks nothing up: the destination leg is known by its events only', async () => {
    await expect(transfer().status(CALL_UUID, 'any')).resolves.toBeNull();
    expect(server.requests).toHaveLength(0);
  });
});
