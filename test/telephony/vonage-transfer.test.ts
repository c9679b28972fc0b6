import { generateKeyPairSync } from 'node:crypto';
import { jwtVerify } from 'jose';
import {
  ProviderError,
  type StartTransferRequest,
  type TelephonyTransfer,
  type WebhookRequest,
} from '../../telephony/provider';
import { vonageProvider, type VonageConfig } from '../../telephony/providers/vonage';
import { FakeProviderServer } from './helpers/fake-provider-server';
import { transferRequest } from './helpers/transfer-request';

/** Vonage's leg statuses (events and the call resource), and the transfer status each reads as. */
const LEG_STATUSES = [
  ['started', 'ringing'],
  ['ringing', 'ringing'],
  ['answered', 'answered'],
  ['completed', 'answered'],
  ['busy', 'busy'],
  ['rejected', 'busy'],
  ['timeout', 'no-answer'],
  ['unanswered', 'no-answer'],
  ['failed', 'failed'],
  ['cancelled', 'canceled'],
];

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const config: VonageConfig = {
  api_key: 'abcd1234',
  api_secret: 'api-secret-value',
  application_id: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
  private_key: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  signature_secret: 'qwertyuiopasdfghjklzxcvbnm123456',
};
const uuid = '63f61863-4a51-4f6b-86e1-46edebcf9356';
const legUuid = 'aaaaaaaa-0000-4000-8000-0000000000b1';
const conversationUuid = 'CON-f972836a-550f-45fa-956c-12a2ab5b7d22';
const now = new Date('2026-03-02T10:15:00.000Z');
const startedSeconds = now.getTime() / 1000;
const transfer = transferRequest('vonage', {
  providerCallId: uuid,
  destination: '+447700900999',
  from: '+447700900000',
  ringTimeoutSeconds: 30,
});

let server: FakeProviderServer;
let vonage: TelephonyTransfer;

beforeAll(async () => {
  server = await FakeProviderServer.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  vonage = vonageProvider.create(config, { apiBaseUrl: server.url, timeoutMs: 2_000, now: () => now }).transfer!;
});

async function expectApplicationJwt(authorization: string | undefined): Promise<void> {
  const token = /^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '';
  const { payload } = await jwtVerify(token, publicKey, { algorithms: ['RS256'], currentDate: now });
  expect(payload.application_id).toBe(config.application_id);
}

describe('start', () => {
  it('transfers the live call to an NCCO: connect the destination with the hold audio, then back to the stream', async () => {
    server.answer({ status: 204 });

    const { transferId } = await vonage.start(transfer);

    expect(transferId).toMatch(new RegExp(`^tr[0-9a-f]{24}\\.${startedSeconds}$`));
    const request = server.onlyRequest();
    expect([request.method, request.path]).toEqual(['PUT', `/v1/calls/${uuid}`]);
    await expectApplicationJwt(request.headers.authorization);
    expect(JSON.parse(request.body)).toEqual({
      action: 'transfer',
      destination: {
        type: 'ncco',
        ncco: [
          {
            action: 'connect',
            from: '447700900000',
            timeout: 30,
            ringbackTone: transfer.holdAudioMp3Url,
            eventUrl: [`${transfer.transferCallbackUrl}?transfer_id=${transferId}`],
            eventMethod: 'POST',
            endpoint: [{ type: 'phone', number: '447700900999' }],
          },
          {
            action: 'connect',
            endpoint: [
              {
                type: 'websocket',
                uri: transfer.mediaStreamUrl,
                'content-type': 'audio/l16;rate=16000',
                headers: { run_id: '42' },
              },
            ],
          },
        ],
      },
    });
  });

  it('connects a SIP URI as a SIP endpoint, without a caller id when there is none', async () => {
    server.answer({ status: 204 });

    await vonage.start({ ...transfer, destination: 'sip:desk@pbx.example.com', from: null });

    const body = JSON.parse(server.onlyRequest().body) as { destination: { ncco: Record<string, unknown>[] } };
    const [connect] = body.destination.ncco;
    expect(connect?.endpoint).toEqual([{ type: 'sip', uri: 'sip:desk@pbx.example.com' }]);
    expect(connect).not.toHaveProperty('from');
  });

  it("turns Vonage's refusal into a ProviderError", async () => {
    server.answer({
      status: 400,
      contentType: 'application/problem+json',
      body: { type: 'https://developer.nexmo.com/api-errors', title: 'Bad Request', detail: 'Call is not active' },
    });
    await expect(vonage.start(transfer)).rejects.toThrow('Vonage answered 400: Call is not active');
  });
});

describe('status and cancel', () => {
  const transferId = `tr0123456789abcdef01234567.${startedSeconds}`;
  const caller = { status: 200, body: { uuid, conversation_uuid: conversationUuid, status: 'answered' } };
  /** `GET /v1/calls?conversation_uuid=`: the conversation's legs, newest first. */
  const legs = (...calls: { uuid: string; status: string; type: string }[]) => ({
    status: 200,
    body: {
      count: calls.length,
      page_size: 10,
      record_index: 0,
      _embedded: {
        calls: calls.map((call) => ({
          uuid: call.uuid,
          conversation_uuid: conversationUuid,
          status: call.status,
          direction: 'outbound',
          to: call.type === 'phone' ? { type: 'phone', number: '447700900999' } : { type: call.type },
          start_time: '2026-03-02T10:15:01.000Z',
        })),
      },
    },
  });

  it("finds the conversation's newest phone leg since the transfer started", async () => {
    server.answer(
      caller,
      legs(
        { uuid: 'ws-leg', status: 'answered', type: 'websocket' },
        { uuid: legUuid, status: 'ringing', type: 'phone' },
      ),
    );

    await expect(vonage.status(uuid, transferId)).resolves.toMatchObject({
      status: 'ringing',
      transferId,
      providerCallId: legUuid,
    });

    const [lookup, listing] = server.requests;
    expect([lookup?.method, lookup?.path]).toEqual(['GET', `/v1/calls/${uuid}`]);
    expect([listing?.method, listing?.path]).toEqual(['GET', '/v1/calls']);
    expect(Object.fromEntries(listing!.query)).toEqual({
      conversation_uuid: conversationUuid,
      date_start: '2026-03-02T10:14:58Z',
      order: 'desc',
    });
    await expectApplicationJwt(listing?.headers.authorization);
  });

  // Ringing legs: the look-up above.
  it.each(LEG_STATUSES.filter(([, status]) => status !== 'ringing'))(
    'reads a leg that is %s as %s',
    async (vonageStatus, status) => {
      server.answer(caller, legs({ uuid: legUuid, status: vonageStatus, type: 'phone' }));
      await expect(vonage.status(uuid, transferId)).resolves.toMatchObject({ status });
    },
  );

  it('knows nothing of a transfer without a leg yet, nor of a call Vonage does not know', async () => {
    server.answer(caller, { status: 200, body: { count: 0, page_size: 10, record_index: 0 } });
    await expect(vonage.status(uuid, transferId)).resolves.toBeNull();

    server.answer({ status: 404, body: { title: 'Not found' } });
    await expect(vonage.status(uuid, transferId)).resolves.toBeNull();
  });

  it('hangs up a leg that still rings, and leaves an answered one joined', async () => {
    server.answer(caller, legs({ uuid: legUuid, status: 'ringing', type: 'phone' }), { status: 204 });
    await vonage.cancel(uuid, transferId);
    const hangup = server.requests[2]!;
    expect([hangup.method, hangup.path]).toEqual(['PUT', `/v1/calls/${legUuid}`]);
    expect(JSON.parse(hangup.body)).toEqual({ action: 'hangup' });

    server.reset();
    server.answer(caller, legs({ uuid: legUuid, status: 'answered', type: 'phone' }));
    await vonage.cancel(uuid, transferId);
    expect(server.requests).toHaveLength(2);
  });
});

describe('parseWebhook', () => {
  const transferId = `tr0123456789abcdef01234567.${startedSeconds}`;
  /** An event of the connected leg, as Vonage posts it to the connect action's `eventUrl`. */
  const event = (status: string): WebhookRequest => ({
    method: 'POST',
    url: `${transfer.transferCallbackUrl}?transfer_id=${transferId}`,
    headers: { 'content-type': 'application/json', authorization: 'Bearer checked-by-the-route' },
    rawBody: JSON.stringify({
      from: '447700900000',
      to: '447700900999',
      uuid: legUuid,
      conversation_uuid: conversationUuid,
      status,
      direction: 'outbound',
      timestamp: '2026-03-02T10:15:01.000Z',
    }),
  });

  it.each(LEG_STATUSES)('reads the leg status %s as %s, the transfer from the event URL', (status, expected) => {
    expect(vonage.parseWebhook(event(status))).toMatchObject({
      status: expected,
      transferId,
      providerCallId: legUuid,
    });
  });

  it('refuses events without a transfer status or without the transfer they belong to', () => {
    expect(() => vonage.parseWebhook(event('human'))).toThrow(ProviderError);
    expect(() => vonage.parseWebhook({ ...event('answered'), rawBody: '{"uuid":"x"}' })).toThrow(ProviderError);
    expect(() => vonage.parseWebhook({ ...event('answered'), url: transfer.transferCallbackUrl })).toThrow(
      'Vonage transfer webhook names no transfer',
    );
  });
});

describe('warm transfer', () => {
  const warm: StartTransferRequest = { ...transfer, mode: 'warm', announcement: '  A caller asks about invoice 42.  ' };
  const mediaPart = Buffer.from(transfer.mediaStreamUrl, 'utf8').toString('base64url');
  const conversationOf = (transferId: string) => transferId.split('.').slice(0, 2).join('.');
  const callerPath = `/v1/calls/${uuid}`;
  const legPath = `/v1/calls/${legUuid}`;
  /** The NCCO that streams the caller back to the agent. */
  const backToTheAgent = {
    action: 'transfer',
    destination: {
      type: 'ncco',
      ncco: [
        {
          action: 'connect',
          endpoint: [
            {
              type: 'websocket',
              uri: transfer.mediaStreamUrl,
              'content-type': 'audio/l16;rate=16000',
              headers: { run_id: '42' },
            },
          ],
        },
      ],
    },
  };
  const created = {
    status: 201,
    body: { uuid: legUuid, status: 'started', direction: 'outbound', conversation_uuid: 'CON-x' },
  };
  const callResource = (id: string, status: string) => ({
    status: 200,
    body: { uuid: id, conversation_uuid: conversationUuid, status, direction: 'outbound' },
  });

  it('moves the caller into a named conversation with hold music, then calls the destination to speak and join it', async () => {
    server.answer({ status: 204 }, created);

    const { transferId } = await vonage.start(warm);

    expect(transferId).toMatch(new RegExp(`^tr[0-9a-f]{24}\\.${startedSeconds}\\.42\\.${mediaPart}\\.${legUuid}$`));
    const conversation = conversationOf(transferId);
    expect(server.requests).toHaveLength(2);
    const [moveCaller, callDestination] = server.requests;
    expect([moveCaller!.method, moveCaller!.path]).toEqual(['PUT', callerPath]);
    await expectApplicationJwt(moveCaller!.headers.authorization);
    expect(JSON.parse(moveCaller!.body)).toEqual({
      action: 'transfer',
      destination: {
        type: 'ncco',
        ncco: [
          {
            action: 'conversation',
            name: conversation,
            musicOnHoldUrl: [transfer.holdAudioMp3Url],
            startOnEnter: false,
            endOnExit: true,
          },
        ],
      },
    });
    expect([callDestination!.method, callDestination!.path]).toEqual(['POST', '/v1/calls']);
    await expectApplicationJwt(callDestination!.headers.authorization);
    expect(JSON.parse(callDestination!.body)).toEqual({
      to: [{ type: 'phone', number: '447700900999' }],
      from: { type: 'phone', number: '447700900000' },
      ncco: [
        { action: 'talk', text: 'A caller asks about invoice 42.' },
        { action: 'conversation', name: conversation, startOnEnter: true, endOnExit: true },
      ],
      ringing_timer: 30,
      event_url: [`${transfer.transferCallbackUrl}?transfer_id=${conversation}.42.${mediaPart}`],
      event_method: 'POST',
    });
  });

  it('joins without speaking when there is nothing to say, and calls a SIP URI as it is', async () => {
    server.answer({ status: 204 }, created);

    await vonage.start({ ...warm, announcement: '  ', destination: 'sip:desk@pbx.example.com' });

    const body = JSON.parse(server.requests[1]!.body) as { to: unknown; ncco: { action: string }[] };
    expect(body.to).toEqual([{ type: 'sip', uri: 'sip:desk@pbx.example.com' }]);
    expect(body.ncco.map((action) => action.action)).toEqual(['conversation']);
  });

  it('refuses without a caller id, calling nothing', async () => {
    await expect(vonage.start({ ...warm, from: null })).rejects.toThrow(ProviderError);
    expect(server.requests).toHaveLength(0);
  });

  it('sends the caller back to the agent when Vonage refuses to call the destination', async () => {
    server.answer(
      { status: 204 },
      {
        status: 400,
        contentType: 'application/problem+json',
        body: { type: 'https://developer.nexmo.com/api-errors', title: 'Bad Request', detail: 'Invalid number' },
      },
      callResource(uuid, 'answered'),
      { status: 204 },
    );

    const refusal = await vonage.start(warm).catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(ProviderError);
    expect((refusal as ProviderError).retryable).toBe(false);
    expect(server.requests.map((request) => [request.method, request.path])).toEqual([
      ['PUT', callerPath],
      ['POST', '/v1/calls'],
      ['GET', callerPath],
      ['PUT', callerPath],
    ]);
    expect(JSON.parse(server.requests[3]!.body)).toEqual(backToTheAgent);
  });

  it('is released from its id alone by an adapter of another process, which keeps nothing of the start', async () => {
    server.answer({ status: 204 }, created);
    const { transferId } = await vonage.start(warm);
    server.reset();

    const otherProcess = vonageProvider.create(config, { apiBaseUrl: server.url, timeoutMs: 2_000, now: () => now });
    server.answer(callResource(legUuid, 'ringing'), { status: 204 }, callResource(uuid, 'answered'), { status: 204 });
    await otherProcess.transfer!.release!(uuid, transferId);

    expect(server.requests.map((request) => [request.method, request.path])).toEqual([
      ['GET', legPath],
      ['PUT', legPath],
      ['GET', callerPath],
      ['PUT', callerPath],
    ]);
    expect(JSON.parse(server.requests[3]!.body)).toEqual(backToTheAgent);
  });

  describe('once started', () => {
    const conversation = `tr0123456789abcdef01234567.${startedSeconds}`;
    const callbackId = `${conversation}.42.${mediaPart}`;
    const transferId = `${callbackId}.${legUuid}`;
    /** An event of the destination's call, as Vonage posts it to the call's `event_url`. */
    const event = (fields: Record<string, unknown>): WebhookRequest => ({
      method: 'POST',
      url: `${transfer.transferCallbackUrl}?transfer_id=${callbackId}`,
      headers: { 'content-type': 'application/json', authorization: 'Bearer checked-by-the-route' },
      rawBody: JSON.stringify({
        from: '447700900000',
        to: '447700900999',
        uuid: legUuid,
        conversation_uuid: 'CON-aaaaaaaa-0000-4000-8000-000000000001',
        direction: 'outbound',
        timestamp: '2026-03-02T10:15:03.000Z',
        ...fields,
      }),
    });

    it.each(LEG_STATUSES)(
      "reads the destination call's %s event as %s, naming the transfer start returned",
      (status, expected) => {
        expect(vonage.parseWebhook(event({ status }))).toEqual(
          expect.objectContaining({ status: expected, transferId, providerCallId: legUuid }),
        );
      },
    );

    it('refuses an event that names no call', () => {
      expect(() => vonage.parseWebhook(event({ status: 'busy', uuid: undefined }))).toThrow(ProviderError);
    });

    it("looks the destination's call up by its uuid", async () => {
      server.answer(callResource(legUuid, 'busy'));

      await expect(vonage.status(uuid, transferId)).resolves.toMatchObject({
        status: 'busy',
        transferId,
        providerCallId: legUuid,
      });
      const request = server.onlyRequest();
      expect([request.method, request.path]).toEqual(['GET', legPath]);
      await expectApplicationJwt(request.headers.authorization);
    });

    it('knows nothing of a destination call Vonage does not know', async () => {
      server.answer({ status: 404, body: { title: 'Not found' } });
      await expect(vonage.status(uuid, transferId)).resolves.toBeNull();
    });

    it('hangs up a ringing destination and leaves the caller waiting for the release', async () => {
      server.answer(callResource(legUuid, 'ringing'), { status: 204 });

      await vonage.cancel(uuid, transferId);

      expect(server.requests.map((request) => [request.method, request.path])).toEqual([
        ['GET', legPath],
        ['PUT', legPath],
      ]);
      expect(JSON.parse(server.requests[1]!.body)).toEqual({ action: 'hangup' });
    });

    it('leaves an answered destination as it is when canceled', async () => {
      server.answer(callResource(legUuid, 'answered'));
      await vonage.cancel(uuid, transferId);
      expect(server.requests).toHaveLength(1);
    });

    it.each(['busy', 'timeout', 'unanswered', 'failed', 'rejected'])(
      'streams the caller back to the agent after a destination that ended %s',
      async (status) => {
        server.answer(callResource(legUuid, status), callResource(uuid, 'answered'), { status: 204 });

        await vonage.release!(uuid, transferId);

        expect(server.requests.map((request) => [request.method, request.path])).toEqual([
          ['GET', legPath],
          ['GET', callerPath],
          ['PUT', callerPath],
        ]);
        expect(JSON.parse(server.requests[2]!.body)).toEqual(backToTheAgent);
      },
    );

    it('hangs up a destination still ringing at the ring timeout before streaming the caller back', async () => {
      server.answer(callResource(legUuid, 'ringing'), { status: 204 }, callResource(uuid, 'answered'), { status: 204 });

      await vonage.release!(uuid, transferId);

      expect(
        server.requests.map((request) => [request.method, request.path, JSON.parse(request.body || '{}') as unknown]),
      ).toEqual([
        ['GET', legPath, {}],
        ['PUT', legPath, { action: 'hangup' }],
        ['GET', callerPath, {}],
        ['PUT', callerPath, backToTheAgent],
      ]);
    });

    it('streams the caller back after a person who hung up before the join, whatever Vonage still knows of the leg', async () => {
      server.answer(callResource(legUuid, 'completed'), callResource(uuid, 'answered'), { status: 204 });
      await vonage.release!(uuid, transferId);
      expect(server.requests).toHaveLength(3);

      server.reset();
      server.answer({ status: 404, body: { title: 'Not found' } }, callResource(uuid, 'answered'), { status: 204 });
      await vonage.release!(uuid, transferId);
      expect(server.requests.map((request) => request.method)).toEqual(['GET', 'GET', 'PUT']);
    });

    it('leaves a caller whose person answered, and a caller who hung up', async () => {
      server.answer(callResource(legUuid, 'answered'));
      await vonage.release!(uuid, transferId);
      expect(server.requests).toHaveLength(1);

      server.reset();
      server.answer(callResource(legUuid, 'cancelled'), callResource(uuid, 'completed'));
      await vonage.release!(uuid, transferId);
      expect(server.requests.map((request) => request.method)).toEqual(['GET', 'GET']);

      server.reset();
      server.answer(callResource(legUuid, 'timeout'), { status: 404, body: { title: 'Not found' } });
      await expect(vonage.release!(uuid, transferId)).resolves.toBeUndefined();
      expect(server.requests).toHaveLength(2);
    });

    it('has nothing to release for a blind transfer, whose NCCO brings the caller back', async () => {
      await vonage.release!(uuid, conversation);
      expect(server.requests).toHaveLength(0);
    });
  });
});

it('offers blind and warm transfers', () => {
  expect(vonageProvider.transferModes).toEqual(['blind', 'warm']);
});
