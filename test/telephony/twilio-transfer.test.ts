import {
  ProviderError,
  type StartTransferRequest,
  type TelephonyTransfer,
  type WebhookRequest,
} from '../../telephony/provider';
import { twilioProvider } from '../../telephony/providers/twilio';
import { FakeProviderServer } from './helpers/fake-provider-server';

const SID = 'ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const TOKEN = 'twilio_auth_token_1234';
const CALL_SID = 'CAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const LEG_SID = 'CAbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const basic = `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`;
const now = new Date('2026-03-02T10:15:00.000Z');
const startedSeconds = now.getTime() / 1000;
const transfer: StartTransferRequest = {
  runId: 42,
  providerCallId: CALL_SID,
  destination: '+14155550999',
  from: '+14158675308',
  mode: 'blind',
  announcement: null,
  holdAudioUrl: 'https://sb.example.com/api/v1/telephony/hold-audio.wav',
  ringTimeoutSeconds: 25,
  idempotencyKey: 'call-7-42:transfer-1',
  transferCallbackUrl: 'https://sb.example.com/api/v1/telephony/twilio/transfer/42',
  answerUrl: 'https://sb.example.com/api/v1/telephony/twilio/answer/42',
  mediaStreamUrl: 'wss://sb.example.com/api/v1/telephony/twilio/media/42?token=t',
};
/** A child call of the transferred call, as `GET .../Calls.json?ParentCallSid=` lists it. */
const leg = (sid: string, status: string, created: Date, to = transfer.destination) => ({
  sid,
  parent_call_sid: CALL_SID,
  account_sid: SID,
  to,
  status,
  direction: 'outbound-dial',
  date_created: created.toUTCString().replace('GMT', '+0000'),
});

let server: FakeProviderServer;
let twilio: TelephonyTransfer;

beforeAll(async () => {
  server = await FakeProviderServer.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  const adapter = twilioProvider.create(
    { account_sid: SID, auth_token: TOKEN, amd_enabled: false },
    { apiBaseUrl: server.url, timeoutMs: 2_000, now: () => now },
  );
  twilio = adapter.transfer!;
});

describe('start', () => {
  it('updates the live call with a <Dial> of the number, its leg reporting to the transfer callback', async () => {
    server.answer({ status: 200, body: { sid: CALL_SID, status: 'in-progress' } });

    const { transferId } = await twilio.start(transfer);

    expect(transferId).toMatch(new RegExp(`^tr[0-9a-f]{24}\\.${startedSeconds}$`));
    const request = server.onlyRequest();
    expect([request.method, request.path]).toEqual(['POST', `/2010-04-01/Accounts/${SID}/Calls/${CALL_SID}.json`]);
    expect(request.headers.authorization).toBe(basic);
    const form = Object.fromEntries(new URLSearchParams(request.body));
    expect(Object.keys(form)).toEqual(['Twiml']);
    const callback = `${transfer.transferCallbackUrl}?transfer_id=${transferId}`;
    expect(form.Twiml).toBe(
      '<Response><Dial action="https://sb.example.com/api/v1/telephony/twilio/answer/42" method="POST" ' +
        'timeout="25" callerId="+14158675308"><Number statusCallback="' +
        callback +
        '" statusCallbackMethod="POST" statusCallbackEvent="initiated ringing answered completed">' +
        '+14155550999</Number></Dial></Response>',
    );
  });

  it('dials a SIP URI with <Sip>, and leaves the caller id to Twilio when there is none', async () => {
    server.answer({ status: 200, body: { sid: CALL_SID, status: 'in-progress' } });

    await twilio.start({ ...transfer, destination: 'sip:desk@pbx.example.com', from: null });

    const twiml = new URLSearchParams(server.onlyRequest().body).get('Twiml') ?? '';
    expect(twiml).toContain(
      '<Dial action="https://sb.example.com/api/v1/telephony/twilio/answer/42" method="POST" timeout="25">',
    );
    expect(twiml).toMatch(/<Sip statusCallback="[^"]+" [^>]*>sip:desk@pbx\.example\.com<\/Sip><\/Dial>/);
  });

  it('escapes the addresses it writes into the TwiML', async () => {
    server.answer({ status: 200, body: { sid: CALL_SID, status: 'in-progress' } });

    await twilio.start({ ...transfer, answerUrl: 'https://sb.example.com/a?x=1&y="2"' });

    const twiml = new URLSearchParams(server.onlyRequest().body).get('Twiml') ?? '';
    expect(twiml).toContain('action="https://sb.example.com/a?x=1&#38;y=&#34;2&#34;"');
  });

  it("turns Twilio's refusal of a call that is over into a ProviderError that is not retried", async () => {
    server.answer({ status: 400, body: { code: 21220, message: 'Call is not in-progress. Cannot redirect.' } });

    const refusal = await twilio.start(transfer).catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(ProviderError);
    expect((refusal as ProviderError).message).toBe('Twilio answered 400: Call is not in-progress. Cannot redirect.');
    expect((refusal as ProviderError).retryable).toBe(false);
  });

  it('refuses a warm transfer without calling Twilio', async () => {
    await expect(twilio.start({ ...transfer, mode: 'warm', announcement: 'A caller about billing' })).rejects.toThrow(
      ProviderError,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('status and cancel', () => {
  const transferId = `tr0123456789abcdef01234567.${startedSeconds}`;
  const listPath = `/2010-04-01/Accounts/${SID}/Calls.json`;

  it("looks up the call's newest dialed leg since the transfer started", async () => {
    const earlier = new Date(now.getTime() - 60_000);
    const later = new Date(now.getTime() + 3_000);
    server.answer({
      status: 200,
      body: { calls: [leg('CAold', 'busy', earlier), leg(LEG_SID, 'ringing', later)], page: 0 },
    });

    await expect(twilio.status(CALL_SID, transferId)).resolves.toMatchObject({
      status: 'ringing',
      transferId,
      providerCallId: LEG_SID,
    });

    const request = server.onlyRequest();
    expect([request.method, request.path]).toEqual(['GET', listPath]);
    expect(request.query.get('ParentCallSid')).toBe(CALL_SID);
    expect(request.headers.authorization).toBe(basic);
  });

  it.each([
    ['in-progress', 'answered'],
    ['completed', 'answered'],
    ['busy', 'busy'],
    ['no-answer', 'no-answer'],
    ['failed', 'failed'],
    ['canceled', 'canceled'],
  ])('reads a leg that is %s as %s', async (twilioStatus, status) => {
    server.answer({ status: 200, body: { calls: [leg(LEG_SID, twilioStatus, now)] } });
    await expect(twilio.status(CALL_SID, transferId)).resolves.toMatchObject({ status });
  });

  it('knows nothing of a transfer whose leg Twilio has not created yet', async () => {
    server.answer({ status: 200, body: { calls: [leg('CAold', 'completed', new Date(now.getTime() - 60_000))] } });
    await expect(twilio.status(CALL_SID, transferId)).resolves.toBeNull();
  });

  it('cancels a leg that still rings', async () => {
    server.answer({ status: 200, body: { calls: [leg(LEG_SID, 'ringing', now)] } }, { status: 200, body: {} });

    await twilio.cancel(CALL_SID, transferId);

    expect(server.requests).toHaveLength(2);
    const cancel = server.requests[1]!;
    expect([cancel.method, cancel.path]).toEqual(['POST', `/2010-04-01/Accounts/${SID}/Calls/${LEG_SID}.json`]);
    expect(Object.fromEntries(new URLSearchParams(cancel.body))).toEqual({ Status: 'canceled' });
  });

  it('leaves an answered leg joined, and one answered between the look-up and the cancel too', async () => {
    server.answer({ status: 200, body: { calls: [leg(LEG_SID, 'in-progress', now)] } });
    await twilio.cancel(CALL_SID, transferId);
    expect(server.requests).toHaveLength(1);

    server.reset();
    server.answer(
      { status: 200, body: { calls: [leg(LEG_SID, 'ringing', now)] } },
      { status: 400, body: { code: 21220, message: 'Call is not ringing' } },
    );
    await expect(twilio.cancel(CALL_SID, transferId)).resolves.toBeUndefined();
  });
});

describe('parseWebhook', () => {
  const transferId = `tr0123456789abcdef01234567.${startedSeconds}`;
  /** The dialed leg's status callback, as Twilio posts it to the `<Number statusCallback>` URL. */
  const callback = (fields: Record<string, string>): WebhookRequest => ({
    method: 'POST',
    url: `${transfer.transferCallbackUrl}?transfer_id=${transferId}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'checked-by-the-route' },
    rawBody: new URLSearchParams({
      AccountSid: SID,
      CallSid: LEG_SID,
      ParentCallSid: CALL_SID,
      Direction: 'outbound-dial',
      To: transfer.destination,
      From: '+14158675308',
      SequenceNumber: '0',
      Timestamp: 'Mon, 02 Mar 2026 10:15:01 +0000',
      CallbackSource: 'call-progress-events',
      ...fields,
    }).toString(),
  });

  it.each([
    ['initiated', 'ringing'],
    ['ringing', 'ringing'],
    ['in-progress', 'answered'],
    ['completed', 'answered'],
    ['busy', 'busy'],
    ['no-answer', 'no-answer'],
    ['failed', 'failed'],
    ['canceled', 'canceled'],
  ])('maps the leg status %s to %s, naming the transfer from the callback URL', (CallStatus, status) => {
    expect(twilio.parseWebhook(callback({ CallStatus }))).toMatchObject({
      status,
      transferId,
      providerCallId: LEG_SID,
    });
  });

  it('refuses a callback without a known status, or without the transfer it belongs to', () => {
    expect(() => twilio.parseWebhook(callback({ CallStatus: 'sideways' }))).toThrow(ProviderError);
    expect(() =>
      twilio.parseWebhook({ ...callback({ CallStatus: 'ringing' }), url: transfer.transferCallbackUrl }),
    ).toThrow('Twilio transfer webhook names no transfer');
  });
});
