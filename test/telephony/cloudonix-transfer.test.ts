import {
  ProviderError,
  type AnswerTarget,
  type TelephonyTransfer,
  type WebhookRequest,
} from '../../telephony/provider';
import { cloudonixProvider } from '../../telephony/providers/cloudonix';
import { transferIdOf } from '../../telephony/transfer-callback';
import { FakeProviderServer } from './helpers/fake-provider-server';
import { transferRequest } from './helpers/transfer-request';

const API_KEY = 'XI-domain-api-key-value';
const TOKEN = '16a7294c989b11e7b3d32b9edb8660c7';
const transfer = transferRequest('cloudonix', {
  providerCallId: TOKEN,
  destination: '+14155550999',
  from: '+14158675308',
});
const transferId = transferIdOf(transfer.idempotencyKey);
const callback = (step: string) => `${transfer.transferCallbackUrl}?transfer_id=${transferId}&step=${step}`;
const caller: AnswerTarget = {
  runId: 42,
  providerCallId: TOKEN,
  statusCallbackUrl: 'https://sb.example.com/api/v1/telephony/cloudonix/status/42',
  mediaStreamUrl: 'wss://sb.example.com/api/v1/telephony/cloudonix/media/42?token=fresh',
};

/** A request of the dial to the transfer callback: cXML callbacks are JSON, as voice-application requests are. */
const webhook = (step: string, fields: Record<string, unknown>): WebhookRequest => ({
  method: 'POST',
  url: callback(step),
  headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
  rawBody: JSON.stringify(fields),
});

let server: FakeProviderServer;
let cloudonix: TelephonyTransfer;

beforeAll(async () => {
  server = await FakeProviderServer.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  const adapter = cloudonixProvider.create(
    { bearer_token: API_KEY, domain_id: 'acme', application_name: 'switchboard-inbound' },
    { apiBaseUrl: server.url, timeoutMs: 2_000 },
  );
  cloudonix = adapter.transfer!;
});

describe('start', () => {
  it("switches the caller's live session to a <Dial> of the number, both of its callbacks naming the transfer", async () => {
    server.answer({ status: 200, body: { token: TOKEN } });

    await expect(cloudonix.start(transfer)).resolves.toEqual({ transferId });

    const request = server.onlyRequest();
    expect([request.method, request.path]).toEqual(['POST', `/calls/acme.cloudonix.net/sessions/${TOKEN}/application`]);
    expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    const escaped = (url: string) => url.replace(/&/g, '&#38;');
    expect(JSON.parse(request.body)).toEqual({
      cxml:
        `<Response><Dial action="${escaped(callback('result'))}" method="POST" timeout="25" ` +
        `callerId="+14158675308"><Number statusCallback="${escaped(callback('events'))}" ` +
        'statusCallbackMethod="POST" statusCallbackEvent="initiated ringing answered completed">' +
        '+14155550999</Number></Dial></Response>',
    });
  });

  it('dials a SIP URI with <Sip>, and leaves the caller id to Cloudonix when there is none', async () => {
    server.answer({ status: 200, body: {} });
    await cloudonix.start({ ...transfer, destination: 'sip:sales@pbx.example.com', from: null });
    const { cxml } = JSON.parse(server.onlyRequest().body) as { cxml: string };
    expect(cxml).toContain('<Sip statusCallback=');
    expect(cxml).toContain('>sip:sales@pbx.example.com</Sip>');
    expect(cxml).not.toContain('callerId');
  });

  it('refuses warm transfers without asking Cloudonix', async () => {
    await expect(cloudonix.start({ ...transfer, mode: 'warm', announcement: 'A caller' })).rejects.toThrow(
      'Cloudonix transfers are blind only',
    );
    expect(server.requests).toHaveLength(0);
  });

  it("passes Cloudonix's refusal on as a ProviderError with its status", async () => {
    server.answer({ status: 404, body: { message: 'session not found' } });
    const refused = await cloudonix.start(transfer).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProviderError);
    expect((refused as ProviderError).status).toBe(404);
  });
});

describe('cancel and status', () => {
  it("ask Cloudonix nothing: the dial's own timeout ends the ringing, and no look-up of its leg is documented", async () => {
    await expect(cloudonix.cancel(TOKEN, transferId)).resolves.toBeUndefined();
    await expect(cloudonix.status(TOKEN, transferId)).resolves.toBeNull();
    expect(server.requests).toHaveLength(0);
  });
});

describe("the dialed leg's status callback", () => {
  it.each([
    ['initiated', 'ringing'],
    ['ringing', 'ringing'],
    ['in-progress', 'answered'],
    ['completed', 'answered'],
    ['busy', 'busy'],
    ['no-answer', 'no-answer'],
    ['failed', 'failed'],
    ['canceled', 'canceled'],
  ])('reads CallStatus %s as %s', (callStatus, status) => {
    const event = cloudonix.parseWebhook(webhook('events', { CallSid: 'leg-token', CallStatus: callStatus }));
    expect(event).toMatchObject({ status, transferId, providerCallId: 'leg-token' });
    expect(cloudonix.markup?.(webhook('events', { CallStatus: callStatus }), caller)).toBeNull();
  });

  it.each([
    ['connected', 'answered'],
    ['noanswer', 'no-answer'],
    ['congestion', 'failed'],
    ['cancel', 'canceled'],
  ])('reads the session status %s (Cloudonix session notifications) as %s', (sessionStatus, status) => {
    const event = cloudonix.parseWebhook(webhook('events', { Session: 'leg-token', status: sessionStatus }));
    expect(event).toMatchObject({ status, transferId, providerCallId: 'leg-token' });
  });

  it('refuses a status it does not know, and a callback naming no transfer', () => {
    expect(() => cloudonix.parseWebhook(webhook('events', { CallStatus: 'transferred' }))).toThrow(ProviderError);
    expect(() =>
      cloudonix.parseWebhook({ ...webhook('events', { CallStatus: 'busy' }), url: transfer.transferCallbackUrl }),
    ).toThrow('Cloudonix transfer webhook names no transfer');
  });
});

describe("the dial's action", () => {
  it.each([
    ['busy', 'busy'],
    ['no-answer', 'no-answer'],
    ['failed', 'failed'],
    ['canceled', 'canceled'],
  ])('reads DialCallStatus %s as %s and streams the caller back to the agent', (dialStatus, status) => {
    const request = webhook('result', { CallSid: TOKEN, DialCallStatus: dialStatus, DialCallSid: 'leg-token' });
    expect(cloudonix.parseWebhook(request)).toMatchObject({ status, transferId, providerCallId: 'leg-token' });
    expect(cloudonix.markup?.(request, caller)).toEqual({
      contentType: 'text/xml',
      body:
        '<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream ' +
        'url="wss://sb.example.com/api/v1/telephony/cloudonix/media/42?token=fresh"/></Connect><Hangup/></Response>',
    });
  });

  it('hangs up once a joined call is over', () => {
    const request = webhook('result', { CallSid: TOKEN, DialCallStatus: 'completed' });
    expect(cloudonix.parseWebhook(request)).toMatchObject({ status: 'answered', transferId });
    expect(cloudonix.markup?.(request, caller)?.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>',
    );
  });
});
