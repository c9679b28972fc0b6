import {
  ProviderError,
  type StartTransferRequest,
  type TelephonyTransfer,
  type WebhookRequest,
} from '../../telephony/provider';
import { twilioProvider } from '../../telephony/providers/twilio';
import { FakeProviderServer } from './helpers/fake-provider-server';
import { transferRequest } from './helpers/transfer-request';

const SID = 'ACaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const TOKEN = 'twilio_auth_token_1234';
const CALL_SID = 'CAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const LEG_SID = 'CAbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const basic = `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`;
const now = new Date('2026-03-02T10:15:00.000Z');
const startedSeconds = now.getTime() / 1000;
const transfer = transferRequest('twilio', {
  providerCallId: CALL_SID,
  destination: '+14155550999',
  from: '+14158675308',
});
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

describe('warm transfer', () => {
  const warm: StartTransferRequest = {
    ...transfer,
    mode: 'warm',
    announcement: 'A caller asks about invoice <42> & a refund.',
  };
  const answerUrlPart = Buffer.from(transfer.answerUrl, 'utf8').toString('base64url');
  const conference = (transferId: string) => transferId.split('.').slice(0, 2).join('.');
  const callsPath = `/2010-04-01/Accounts/${SID}/Calls.json`;
  const callerPath = `/2010-04-01/Accounts/${SID}/Calls/${CALL_SID}.json`;
  const legPath = `/2010-04-01/Accounts/${SID}/Calls/${LEG_SID}.json`;
  const formOf = (body: string) => Object.fromEntries(new URLSearchParams(body));

  it('moves the caller into a conference with hold music, then calls the destination to speak and join it', async () => {
    server.answer(
      { status: 200, body: { sid: CALL_SID, status: 'in-progress' } },
      { status: 201, body: { sid: LEG_SID, status: 'queued' } },
    );

    const { transferId } = await twilio.start(warm);

    expect(transferId).toMatch(new RegExp(`^tr[0-9a-f]{24}\\.${startedSeconds}\\.${answerUrlPart}\\.${LEG_SID}$`));
    const room = conference(transferId);
    expect(server.requests).toHaveLength(2);
    const [moveCaller, callDestination] = server.requests;
    expect([moveCaller!.method, moveCaller!.path]).toEqual(['POST', callerPath]);
    expect(moveCaller!.headers.authorization).toBe(basic);
    expect(formOf(moveCaller!.body)).toEqual({
      Twiml:
        '<Response><Dial><Conference waitUrl="https://sb.example.com/api/v1/telephony/hold-audio.wav" ' +
        'waitMethod="GET" startConferenceOnEnter="false" endConferenceOnExit="true" beep="false">' +
        `${room}</Conference></Dial><Hangup/></Response>`,
    });
    expect([callDestination!.method, callDestination!.path]).toEqual(['POST', callsPath]);
    expect(callDestination!.headers.authorization).toBe(basic);
    const params = new URLSearchParams(callDestination!.body);
    expect(params.getAll('StatusCallbackEvent')).toEqual(['initiated', 'ringing', 'answered', 'completed']);
    params.delete('StatusCallbackEvent');
    expect(Object.fromEntries(params)).toEqual({
      To: '+14155550999',
      From: '+14158675308',
      Twiml:
        '<Response><Say>A caller asks about invoice &#60;42&#62; &#38; a refund.</Say><Dial><Conference ' +
        `startConferenceOnEnter="true" endConferenceOnExit="true" beep="false">${room}</Conference></Dial></Response>`,
      Timeout: '25',
      StatusCallback: `${transfer.transferCallbackUrl}?transfer_id=${room}.${answerUrlPart}`,
      StatusCallbackMethod: 'POST',
    });
  });

  it('joins without speaking when there is nothing to say, and calls a SIP URI as it is', async () => {
    server.answer({ status: 200, body: {} }, { status: 201, body: { sid: LEG_SID, status: 'queued' } });

    await twilio.start({ ...warm, announcement: null, destination: 'sip:desk@pbx.example.com' });

    const form = formOf(server.requests[1]!.body);
    expect(form.To).toBe('sip:desk@pbx.example.com');
    expect(form.Twiml).toMatch(/^<Response><Dial><Conference /);
  });

  it('refuses without a caller id, calling nothing', async () => {
    await expect(twilio.start({ ...warm, from: null })).rejects.toThrow(ProviderError);
    expect(server.requests).toHaveLength(0);
  });

  it('sends the caller back to the agent when Twilio refuses to call the destination', async () => {
    server.answer(
      { status: 200, body: {} },
      { status: 400, body: { code: 21211, message: "The 'To' number is not a valid phone number." } },
      { status: 200, body: {} },
    );

    const refusal = await twilio.start(warm).catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(ProviderError);
    expect((refusal as ProviderError).retryable).toBe(false);
    expect(server.requests).toHaveLength(3);
    const back = server.requests[2]!;
    expect([back.method, back.path]).toEqual(['POST', callerPath]);
    expect(formOf(back.body)).toEqual({ Url: transfer.answerUrl, Method: 'POST' });
  });

  describe('once started', () => {
    const room = `tr0123456789abcdef01234567.${startedSeconds}`;
    const transferId = `${room}.${answerUrlPart}.${LEG_SID}`;
    const callback = (fields: Record<string, string>): WebhookRequest => ({
      method: 'POST',
      url: `${transfer.transferCallbackUrl}?transfer_id=${room}.${answerUrlPart}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'checked-by-the-route' },
      rawBody: new URLSearchParams({
        AccountSid: SID,
        CallSid: LEG_SID,
        Direction: 'outbound-api',
        To: transfer.destination,
        From: '+14158675308',
        SequenceNumber: '1',
        Timestamp: 'Mon, 02 Mar 2026 10:15:03 +0000',
        CallbackSource: 'call-progress-events',
        ...fields,
      }).toString(),
    });

    it.each([
      ['initiated', 'ringing'],
      ['ringing', 'ringing'],
      ['in-progress', 'answered'],
      ['busy', 'busy'],
      ['no-answer', 'no-answer'],
      ['failed', 'failed'],
      ['canceled', 'canceled'],
    ])("reads the destination leg's %s callback as %s, naming the transfer start returned", (CallStatus, status) => {
      expect(twilio.parseWebhook(callback({ CallStatus }))).toEqual(
        expect.objectContaining({ status, transferId, providerCallId: LEG_SID }),
      );
    });

    it('refuses a callback that names no leg', () => {
      const request = callback({ CallStatus: 'busy' });
      const fields = new URLSearchParams(request.rawBody);
      fields.delete('CallSid');
      expect(() => twilio.parseWebhook({ ...request, rawBody: fields.toString() })).toThrow(ProviderError);
    });

    it('looks the destination leg up by its sid', async () => {
      server.answer({ status: 200, body: { sid: LEG_SID, status: 'busy' } });

      await expect(twilio.status(CALL_SID, transferId)).resolves.toMatchObject({ status: 'busy', transferId });
      const request = server.onlyRequest();
      expect([request.method, request.path]).toEqual(['GET', legPath]);
    });

    it('cancels a ringing leg and leaves the caller waiting for the release', async () => {
      server.answer({ status: 200, body: { sid: LEG_SID, status: 'ringing' } }, { status: 200, body: {} });

      await twilio.cancel(CALL_SID, transferId);

      expect(server.requests.map((request) => [request.method, request.path])).toEqual([
        ['GET', legPath],
        ['POST', legPath],
      ]);
      expect(formOf(server.requests[1]!.body)).toEqual({ Status: 'canceled' });
    });

    it('releases the caller back to the answer URL after a busy destination', async () => {
      server.answer({ status: 200, body: { sid: LEG_SID, status: 'busy' } }, { status: 200, body: {} });

      await twilio.release!(CALL_SID, transferId);

      expect(server.requests.map((request) => [request.method, request.path])).toEqual([
        ['GET', legPath],
        ['POST', callerPath],
      ]);
      expect(formOf(server.requests[1]!.body)).toEqual({ Url: transfer.answerUrl, Method: 'POST' });
    });

    it('stops a leg still ringing before releasing the caller', async () => {
      server.answer(
        { status: 200, body: { sid: LEG_SID, status: 'ringing' } },
        { status: 200, body: {} },
        { status: 200, body: {} },
      );

      await twilio.release!(CALL_SID, transferId);

      expect(server.requests.map((request) => [request.method, request.path, formOf(request.body)])).toEqual([
        ['GET', legPath, {}],
        ['POST', legPath, { Status: 'canceled' }],
        ['POST', callerPath, { Url: transfer.answerUrl, Method: 'POST' }],
      ]);
    });

    it('leaves a caller whose person answered, and takes a caller who hung up as released', async () => {
      server.answer({ status: 200, body: { sid: LEG_SID, status: 'in-progress' } });
      await twilio.release!(CALL_SID, transferId);
      expect(server.requests).toHaveLength(1);

      server.reset();
      server.answer(
        { status: 200, body: { sid: LEG_SID, status: 'no-answer' } },
        { status: 400, body: { code: 21220, message: 'Call is not in-progress. Cannot redirect.' } },
      );
      await expect(twilio.release!(CALL_SID, transferId)).resolves.toBeUndefined();
    });

    it('has nothing to release for a blind transfer, whose dial action brings the caller back', async () => {
      await twilio.release!(CALL_SID, room);
      expect(server.requests).toHaveLength(0);
    });
  });
});

it('offers blind and warm transfers', () => {
  expect(twilioProvider.transferModes).toEqual(['blind', 'warm']);
});
