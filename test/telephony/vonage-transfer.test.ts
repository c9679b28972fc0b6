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
const transfer: StartTransferRequest = {
  runId: 42,
  providerCallId: uuid,
  destination: '+447700900999',
  from: '+447700900000',
  mode: 'blind',
  announcement: null,
  holdAudioUrl: 'https://sb.example.com/api/v1/telephony/hold-audio.wav',
  ringTimeoutSeconds: 30,
  idempotencyKey: 'call-7-42:transfer-1',
  transferCallbackUrl: 'https://sb.example.com/api/v1/telephony/vonage/transfer/42',
  answerUrl: 'https://sb.example.com/api/v1/telephony/vonage/answer/42',
  mediaStreamUrl: 'wss://sb.example.com/api/v1/telephony/vonage/media/42?token=t',
};

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
            ringbackTone: transfer.holdAudioUrl,
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

  it('refuses a warm transfer without calling Vonage', async () => {
    await expect(vonage.start({ ...transfer, mode: 'warm', announcement: 'About billing' })).rejects.toThrow(
      ProviderError,
    );
    expect(server.requests).toHaveLength(0);
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

  it.each([
    ['answered', 'answered'],
    ['completed', 'answered'],
    ['busy', 'busy'],
    ['rejected', 'busy'],
    ['timeout', 'no-answer'],
    ['unanswered', 'no-answer'],
    ['failed', 'failed'],
    ['cancelled', 'canceled'],
  ])('reads a leg that is %s as %s', async (vonageStatus, status) => {
    server.answer(caller, legs({ uuid: legUuid, status: vonageStatus, type: 'phone' }));
    await expect(vonage.status(uuid, transferId)).resolves.toMatchObject({ status });
  });

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

  it.each([
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
  ])('reads the leg status %s as %s, the transfer from the event URL', (status, expected) => {
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
