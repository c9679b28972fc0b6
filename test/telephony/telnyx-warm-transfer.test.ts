import {
  ProviderError,
  type TelephonyTransfer,
  type TransferEvent,
  type WebhookRequest,
} from '../../telephony/provider';
import { telnyxProvider, type TelnyxConfig } from '../../telephony/providers/telnyx';
import { MAX_ANNOUNCEMENT_CHARS } from '../../telephony/providers/telnyx/warm-transfer';
import { transferIdOf } from '../../telephony/transfer-callback';
import { FakeProviderServer, type RecordedRequest } from './helpers/fake-provider-server';
import { transferRequest } from './helpers/transfer-request';

const config: TelnyxConfig = { api_key: 'KEY_test_secret_value', connection_id: '1293384261075731499' };
const callerId = 'v3:MdI91X4lWFEs7IgbBEOT9M4AigoY08M0WWZFISt1Yw2axZ_IiE4pqg';
const legId = 'v3:leg-b-0123456789_AbC-dEf';
const announcement = 'A caller about the March invoice; they were charged twice.';
const warm = transferRequest('telnyx', {
  providerCallId: callerId,
  destination: '+15551239999',
  from: '+15550001111',
  mode: 'warm',
  announcement,
});
const name = transferIdOf(warm.idempotencyKey);
const transferId = `${name}.${legId}`;

const state = (value: Record<string, unknown>) => Buffer.from(JSON.stringify(value)).toString('base64');
const stateOf = (clientState: unknown) =>
  JSON.parse(Buffer.from(String(clientState), 'base64').toString('utf8')) as Record<string, unknown>;
const dialedState = state({ transfer: name, step: 'dialed', announcement });
const answeredState = state({ transfer: name, step: 'answered' });
const joinedState = state({ transfer: name, step: 'joined' });

const OK = { status: 200, body: { data: { result: 'ok' } } };
const GONE = {
  status: 422,
  body: { errors: [{ code: '90018', title: 'Call has already ended', detail: 'This call is no longer active.' }] },
};
const NOT_FOUND = { status: 404, body: { errors: [{ title: 'Resource not found' }] } };
/** Telnyx's call resource: whether the call is up, and its client_state. */
const callResource = (id: string, isAlive: boolean, clientState: string | null = null) => ({
  status: 200,
  body: {
    data: {
      record_type: 'call',
      call_control_id: id,
      call_leg_id: 'leg',
      call_session_id: 'session',
      client_state: clientState,
      is_alive: isAlive,
      call_duration: 12,
    },
  },
});

let server: FakeProviderServer;
let telnyx: TelephonyTransfer;

beforeAll(async () => {
  server = await FakeProviderServer.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  telnyx = telnyxProvider.create(config, { apiBaseUrl: server.url, timeoutMs: 2_000 }).transfer!;
});

const action = (id: string, name: string) => ['POST', `/v2/calls/${encodeURIComponent(id)}/actions/${name}`];
const sent = (requests: RecordedRequest[]) => requests.map((request) => [request.method, request.path]);
const bodyOf = (request: RecordedRequest | undefined) => JSON.parse(request?.body ?? 'null') as Record<string, unknown>;

/** An event of the dialed leg, as Telnyx posts it to the leg's `webhook_url`. */
const legEvent = (eventType: string, clientState: string, payload: Record<string, unknown> = {}): WebhookRequest => ({
  method: 'POST',
  url: warm.transferCallbackUrl,
  headers: { 'content-type': 'application/json' },
  rawBody: JSON.stringify({
    data: {
      record_type: 'event',
      event_type: eventType,
      id: '0ccc7b54-4df3-4bca-a65a-3da1ecc777f0',
      occurred_at: '2026-03-02T10:15:01.000000Z',
      payload: {
        call_control_id: legId,
        call_leg_id: 'leg-b',
        call_session_id: 'session-b',
        connection_id: config.connection_id,
        client_state: clientState,
        from: '+15550001111',
        to: '+15551239999',
        ...payload,
      },
    },
    meta: { attempt: 1, delivered_to: warm.transferCallbackUrl },
  }),
});

/** What the transfer callback does with an event: parse it, then carry the transfer on. */
const handle = (request: WebhookRequest): Promise<TransferEvent> =>
  telnyx.advance!(telnyx.parseWebhook(request), callerId);

describe('start', () => {
  it('plays the hold audio to the caller, then dials the destination with the transfer and announcement in its state', async () => {
    server.answer(OK, {
      status: 200,
      body: { data: { call_control_id: legId, call_leg_id: 'leg-b', is_alive: false } },
    });

    const started = await telnyx.start(warm);

    expect(started).toEqual({ transferId });
    expect(sent(server.requests)).toEqual([action(callerId, 'playback_start'), ['POST', '/v2/calls']]);
    const [hold, dial] = server.requests;
    expect(hold?.headers.authorization).toBe('Bearer KEY_test_secret_value');
    expect(bodyOf(hold)).toEqual({ audio_url: warm.holdAudioUrl, loop: 'infinity', command_id: `hold-${name}` });
    const dialBody = bodyOf(dial);
    expect(dialBody).toEqual({
      connection_id: config.connection_id,
      to: warm.destination,
      from: warm.from,
      timeout_secs: 25,
      webhook_url: warm.transferCallbackUrl,
      webhook_url_method: 'POST',
      client_state: expect.any(String),
      command_id: `transfer-${name}`,
    });
    expect(stateOf(dialBody.client_state)).toEqual({ transfer: name, step: 'dialed', announcement });
  });

  it('carries a long announcement cut at a word, and none when there is nothing to say', async () => {
    const long = `${'word '.repeat(400)}end`;
    const dialed = { status: 200, body: { data: { call_control_id: legId } } };
    server.answer(OK, dialed, OK, dialed);

    await telnyx.start({ ...warm, announcement: long });
    await telnyx.start({ ...warm, announcement: '   ' });

    const cut = stateOf(bodyOf(server.requests[1]).client_state).announcement as string;
    expect(cut.length).toBeLessThanOrEqual(MAX_ANNOUNCEMENT_CHARS);
    expect(long.startsWith(cut)).toBe(true);
    expect(cut.endsWith('word')).toBe(true);
    expect(stateOf(bodyOf(server.requests[3]).client_state)).toEqual({ transfer: name, step: 'dialed' });
  });

  it('stops the hold audio when Telnyx refuses the dial, and reports the refusal', async () => {
    server.answer(
      OK,
      { status: 422, body: { errors: [{ title: 'Invalid to', detail: 'The to number is invalid.' }] } },
      OK,
    );

    await expect(telnyx.start(warm)).rejects.toThrow('Telnyx answered 422: The to number is invalid.');

    expect(sent(server.requests)).toEqual([
      action(callerId, 'playback_start'),
      ['POST', '/v2/calls'],
      action(callerId, 'playback_stop'),
    ]);
    expect(bodyOf(server.requests[2])).toEqual({ stop: 'all' });
  });

  it('refuses without a caller id or a Call Control App, calling nobody', async () => {
    await expect(telnyx.start({ ...warm, from: null })).rejects.toThrow(ProviderError);
    const noApp = telnyxProvider.create({ api_key: 'KEY_x' }, { apiBaseUrl: server.url }).transfer!;
    await expect(noApp.start(warm)).rejects.toThrow('Telnyx connection_id (Call Control App) is not set');
    expect(server.requests).toHaveLength(0);
  });
});

describe('the leg events', () => {
  it('answered: speaks the announcement to the person, still ringing for the caller', async () => {
    server.answer(OK);

    const event = await handle(legEvent('call.answered', dialedState));

    expect(event).toMatchObject({ status: 'ringing', transferId, providerCallId: legId });
    expect(sent(server.requests)).toEqual([action(legId, 'speak')]);
    const speak = bodyOf(server.requests[0]);
    expect(speak).toEqual({
      payload: announcement,
      voice: 'female',
      language: 'en-US',
      client_state: answeredState,
      command_id: `announce-${name}`,
    });
  });

  it('announcement ended: bridges the person with the caller, stops the hold audio and the agent stream', async () => {
    server.answer(OK, OK, OK);

    const event = await handle(legEvent('call.speak.ended', answeredState, { status: 'completed' }));

    expect(event).toMatchObject({ status: 'answered', transferId, providerCallId: legId });
    expect(sent(server.requests)).toEqual([
      action(legId, 'bridge'),
      action(callerId, 'playback_stop'),
      action(callerId, 'streaming_stop'),
    ]);
    expect(bodyOf(server.requests[0])).toEqual({
      call_control_id: callerId,
      client_state: joinedState,
      command_id: `join-${name}`,
    });
    expect(bodyOf(server.requests[2])).toEqual({});
  });

  it('answered without an announcement: joins at once', async () => {
    server.answer(OK, OK, OK);

    const event = await handle(legEvent('call.answered', state({ transfer: name, step: 'dialed' })));

    expect(event.status).toBe('answered');
    expect(sent(server.requests)[0]).toEqual(action(legId, 'bridge'));
  });

  it('a person who hung up during the announcement is not joined: the leg refuses the bridge', async () => {
    server.answer(GONE);

    const event = await handle(legEvent('call.speak.ended', answeredState, { status: 'call_hangup' }));

    expect(event.status).toBe('ringing');
    expect(sent(server.requests)).toEqual([action(legId, 'bridge')]);
  });

  it.each([
    ['call.initiated', dialedState, {}, 'ringing'],
    ['call.speak.started', answeredState, {}, 'ringing'],
    ['call.bridged', joinedState, {}, 'answered'],
    ['call.hangup', dialedState, { hangup_cause: 'user_busy', sip_hangup_cause: '486' }, 'busy'],
    ['call.hangup', dialedState, { hangup_cause: 'timeout', sip_hangup_cause: '408' }, 'no-answer'],
    ['call.hangup', dialedState, { hangup_cause: 'call_rejected', sip_hangup_cause: '603' }, 'failed'],
    ['call.hangup', dialedState, { hangup_cause: 'unspecified', sip_hangup_cause: '503' }, 'failed'],
    ['call.hangup', answeredState, { hangup_cause: 'normal_clearing' }, 'no-answer'],
    ['call.hangup', joinedState, { hangup_cause: 'normal_clearing' }, 'answered'],
  ])('reads %s (%s) as %s, sending nothing', async (eventType, clientState, payload, status) => {
    const event = await handle(legEvent(eventType, clientState, payload));
    expect(event).toMatchObject({ status, transferId, providerCallId: legId });
    expect(server.requests).toHaveLength(0);
  });

  it('a repeated answered event repeats the keyed command, which Telnyx runs once', async () => {
    server.answer(OK, OK);
    await handle(legEvent('call.answered', dialedState));
    await handle(legEvent('call.answered', dialedState));
    expect(server.requests.map((request) => bodyOf(request).command_id)).toEqual([
      `announce-${name}`,
      `announce-${name}`,
    ]);
  });

  it('refuses a warm event without its leg', () => {
    expect(() => telnyx.parseWebhook(legEvent('call.answered', dialedState, { call_control_id: undefined }))).toThrow(
      'Telnyx transfer event names no call (call_control_id)',
    );
    expect(() => telnyx.parseWebhook(legEvent('call.playback.started', dialedState))).toThrow(ProviderError);
  });
});

describe('cancel at the ring timeout', () => {
  it('hangs up a leg still ringing', async () => {
    server.answer(callResource(legId, true, dialedState), OK);
    await telnyx.cancel(callerId, transferId);
    expect(sent(server.requests)).toEqual([['GET', `/v2/calls/${encodeURIComponent(legId)}`], action(legId, 'hangup')]);
  });

  it('joins a person hearing the announcement, whom the look-up then finds joined', async () => {
    server.answer(callResource(legId, true, answeredState), OK, OK, OK);
    await telnyx.cancel(callerId, transferId);
    expect(sent(server.requests).slice(1)).toEqual([
      action(legId, 'bridge'),
      action(callerId, 'playback_stop'),
      action(callerId, 'streaming_stop'),
    ]);

    server.reset();
    server.answer(callResource(legId, true, joinedState));
    await expect(telnyx.status(callerId, transferId)).resolves.toMatchObject({ status: 'answered', transferId });
  });

  it('leaves a joined leg, and a leg that is gone, as they are', async () => {
    server.answer(callResource(legId, true, joinedState), callResource(legId, false, dialedState), NOT_FOUND);
    await telnyx.cancel(callerId, transferId);
    await telnyx.cancel(callerId, transferId);
    await telnyx.cancel(callerId, transferId);
    expect(server.requests.every((request) => request.method === 'GET')).toBe(true);
  });
});

describe('status', () => {
  it('leaves a leg not joined to its events while the caller is up, and reads a caller gone as canceled', async () => {
    server.answer(callResource(legId, true, dialedState), callResource(callerId, true));
    await expect(telnyx.status(callerId, transferId)).resolves.toBeNull();
    expect(sent(server.requests)).toEqual([
      ['GET', `/v2/calls/${encodeURIComponent(legId)}`],
      ['GET', `/v2/calls/${encodeURIComponent(callerId)}`],
    ]);

    server.answer(NOT_FOUND, callResource(callerId, false));
    await expect(telnyx.status(callerId, transferId)).resolves.toMatchObject({ status: 'canceled', transferId });
  });
});

describe('release', () => {
  it('hangs up a leg that did not join and stops the hold audio: the caller is back with the agent', async () => {
    server.answer(callResource(legId, true, answeredState), OK, OK);
    await telnyx.release!(callerId, transferId);
    expect(sent(server.requests)).toEqual([
      ['GET', `/v2/calls/${encodeURIComponent(legId)}`],
      action(legId, 'hangup'),
      action(callerId, 'playback_stop'),
    ]);
  });

  it('only stops the hold audio when the leg is over, and changes nothing for a caller gone', async () => {
    server.answer(callResource(legId, false, dialedState), GONE);
    await expect(telnyx.release!(callerId, transferId)).resolves.toBeUndefined();
    expect(sent(server.requests)).toEqual([
      ['GET', `/v2/calls/${encodeURIComponent(legId)}`],
      action(callerId, 'playback_stop'),
    ]);
  });

  it('leaves a joined transfer alone, and a blind one to Telnyx', async () => {
    server.answer(callResource(legId, true, joinedState));
    await telnyx.release!(callerId, transferId);
    await telnyx.release!(callerId, name);
    expect(server.requests).toHaveLength(1);
  });
});

describe('a transfer whose leg events never arrived (the API process was down)', () => {
  const dialed = { status: 200, body: { data: { call_control_id: legId } } };

  it('rang out: the look-ups wait, the ring timeout hangs the leg up, and the release takes the caller off hold', async () => {
    server.answer(OK, dialed);
    await telnyx.start(warm);
    server.reset();

    server.answer(callResource(legId, true, dialedState), callResource(callerId, true));
    await expect(telnyx.status(callerId, transferId)).resolves.toBeNull();
    server.answer(callResource(legId, true, dialedState), OK);
    await telnyx.cancel(callerId, transferId);
    server.answer(NOT_FOUND, callResource(callerId, true));
    await expect(telnyx.status(callerId, transferId)).resolves.toBeNull();
    server.answer(NOT_FOUND, OK);
    await telnyx.release!(callerId, transferId);

    expect(sent(server.requests).filter(([method]) => method === 'POST')).toEqual([
      action(legId, 'hangup'),
      action(callerId, 'playback_stop'),
    ]);
  });

  it('answered and announced to: the ring timeout joins the person, the look-up finds them joined, nothing is released', async () => {
    server.answer(OK, dialed);
    await telnyx.start(warm);
    server.reset();

    server.answer(callResource(legId, true, answeredState), OK, OK, OK);
    await telnyx.cancel(callerId, transferId);
    server.answer(callResource(legId, true, joinedState));
    await expect(telnyx.status(callerId, transferId)).resolves.toMatchObject({ status: 'answered' });

    expect(sent(server.requests).filter(([method]) => method === 'POST')).toEqual([
      action(legId, 'bridge'),
      action(callerId, 'playback_stop'),
      action(callerId, 'streaming_stop'),
    ]);
  });
});

it("says in the provider's metadata that Telnyx transfers blind and warm", () => {
  expect(telnyxProvider.transferModes).toEqual(['blind', 'warm']);
});
