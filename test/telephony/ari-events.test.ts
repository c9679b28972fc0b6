import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { ProviderError, type CallStatus, type StatusEvent, type WebhookRequest } from '../../telephony/provider';
import { ariProvider, openAriEventStream, type AriConfig } from '../../telephony/providers/ari';

const config: AriConfig = {
  ari_endpoint: 'http://pbx.example.com:8088',
  app_name: 'switchboard',
  app_password: 'ari-password-value',
  ws_client_name: '',
  dial_string_template: 'PJSIP/{number}',
  stasis_app_name: 'switchboard_ab12cd34ef56',
};
const channelId = '1700000000.12';
const application = 'switchboard_ab12cd34ef56';

function ariEvent(type: string, fields: Record<string, unknown> = {}, state = 'Ringing') {
  return {
    type,
    timestamp: '2024-01-01T12:00:05.123+0000',
    application,
    channel: { id: channelId, name: 'PJSIP/trunk-00000001', state, creationtime: '2024-01-01T12:00:00.000+0000' },
    ...fields,
  };
}

function asWebhook(event: object): WebhookRequest {
  return { method: 'WS', url: 'ws://pbx.example.com:8088/ari/events', headers: {}, rawBody: JSON.stringify(event) };
}

describe('parseStatusWebhook (ARI events)', () => {
  it.each<[string, object, CallStatus]>([
    ['ChannelStateChange Ringing', ariEvent('ChannelStateChange'), 'ringing'],
    ['ChannelStateChange Up', ariEvent('ChannelStateChange', {}, 'Up'), 'answered'],
    ['ChannelStateChange Busy', ariEvent('ChannelStateChange', {}, 'Busy'), 'busy'],
    ['StasisStart', ariEvent('StasisStart', { args: ['run_id=42'] }, 'Up'), 'answered'],
    ['Dial (dialling)', ariEvent('Dial', { peer: { id: channelId, state: 'Ring' }, dialstatus: '' }), 'ringing'],
    ['Dial ANSWER', ariEvent('Dial', { peer: { id: channelId, state: 'Up' }, dialstatus: 'ANSWER' }), 'answered'],
    ['Dial BUSY', ariEvent('Dial', { peer: { id: channelId }, dialstatus: 'BUSY' }), 'busy'],
    ['Dial NOANSWER', ariEvent('Dial', { peer: { id: channelId }, dialstatus: 'NOANSWER' }), 'no-answer'],
    ['Dial CANCEL', ariEvent('Dial', { peer: { id: channelId }, dialstatus: 'CANCEL' }), 'canceled'],
    ['Dial CONGESTION', ariEvent('Dial', { peer: { id: channelId }, dialstatus: 'CONGESTION' }), 'failed'],
    ['Dial CHANUNAVAIL', ariEvent('Dial', { peer: { id: channelId }, dialstatus: 'CHANUNAVAIL' }), 'failed'],
  ])('%s → %s', (_what, event, status) => {
    const ari = ariProvider.create(config);
    expect(ari.parseStatusWebhook(asWebhook(event))).toEqual({ status, providerCallId: channelId, raw: event });
  });

  describe('ChannelDestroyed before any StasisStart (§7.3)', () => {
    it.each<[number, string, CallStatus]>([
      [16, 'Normal Clearing', 'no-answer'],
      [17, 'User busy', 'busy'],
      [18, 'No user responding', 'no-answer'],
      [19, 'User alerting, no answer', 'no-answer'],
      [21, 'Call Rejected', 'busy'],
      [1, 'Unallocated (unassigned) number', 'failed'],
      [3, 'No route to destination', 'failed'],
      [28, 'Invalid number format', 'failed'],
      [34, 'Circuit/channel congestion', 'failed'],
      [38, 'Network out of order', 'failed'],
      [41, 'Temporary failure', 'failed'],
      [42, 'Switching equipment congestion', 'failed'],
      [0, 'Unknown', 'failed'],
      [31, 'Normal, unspecified', 'failed'],
    ])('cause %i (%s) → %s', (cause, causeTxt, status) => {
      const ari = ariProvider.create(config);
      const destroyed = ariEvent('ChannelDestroyed', { cause, cause_txt: causeTxt });
      expect(ari.parseStatusWebhook(asWebhook(destroyed))).toEqual({
        status,
        providerCallId: channelId,
        durationSeconds: 0,
        raw: destroyed,
      });
    });
  });

  it('after StasisStart, any cause means completed, timed from StasisStart', () => {
    const ari = ariProvider.create(config);
    ari.parseStatusWebhook(
      asWebhook({ ...ariEvent('StasisStart', {}, 'Up'), timestamp: '2024-01-01T12:00:05.000+0000' }),
    );
    const destroyed = {
      ...ariEvent('ChannelDestroyed', { cause: 17 }, 'Up'),
      timestamp: '2024-01-01T12:01:47.400+0000',
    };
    expect(ari.parseStatusWebhook(asWebhook(destroyed))).toMatchObject({ status: 'completed', durationSeconds: 102 });
  });

  it('without the StasisStart (a restart), an Up channel still counts as answered, timed from its creation', () => {
    const ari = ariProvider.create(config);
    const destroyed = {
      ...ariEvent('ChannelDestroyed', { cause: 16 }, 'Up'),
      timestamp: '2024-01-01T12:00:30.000+0000',
    };
    expect(ari.parseStatusWebhook(asWebhook(destroyed))).toMatchObject({ status: 'completed', durationSeconds: 30 });
  });

  it.each([
    ['StasisEnd', JSON.stringify(ariEvent('StasisEnd'))],
    ['ChannelHangupRequest', JSON.stringify(ariEvent('ChannelHangupRequest', { cause: 16, soft: false }))],
    ['an event without a channel', JSON.stringify({ type: 'BridgeCreated', bridge: { id: 'b1' } })],
    ['a body that is not JSON', 'not json'],
  ])('refuses %s', (_what, rawBody) => {
    const ari = ariProvider.create(config);
    expect(() => ari.parseStatusWebhook({ ...asWebhook({}), rawBody })).toThrow(ProviderError);
  });
});

describe('openAriEventStream', () => {
  let wss: WebSocketServer;
  let origin: string;
  const seen: { url: string; authorization: string | undefined }[] = [];

  beforeAll(async () => {
    wss = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      verifyClient: ({ req }, done) => {
        seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
        const expected = `Basic ${Buffer.from('switchboard:ari-password-value').toString('base64')}`;
        if (req.headers.authorization === expected) done(true);
        else done(false, 401, 'Unauthorized');
      },
    });
    await new Promise<void>((resolve) => wss.once('listening', resolve));
    origin = `http://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });

  it("subscribes to the Stasis app with Basic auth and reports each call's statuses", async () => {
    const statuses: StatusEvent[] = [];
    const closed = new Promise<number>((resolve) => {
      void openAriEventStream(
        config,
        { onStatus: (event) => statuses.push(event), onClose: resolve },
        { apiBaseUrl: origin },
      );
    });
    const socket = await new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
    for (const event of [
      ariEvent('ChannelStateChange'),
      ariEvent('StasisStart', { timestamp: '2024-01-01T12:00:05.000+0000' }, 'Up'),
      ariEvent('ChannelHangupRequest', { cause: 16 }, 'Up'),
      ariEvent('StasisEnd', {}, 'Up'),
      ariEvent('ChannelDestroyed', { cause: 16, timestamp: '2024-01-01T12:00:47.000+0000' }, 'Up'),
    ]) {
      socket.send(JSON.stringify(event));
    }
    socket.send('not json');
    socket.close(1000);

    await expect(closed).resolves.toBe(1000);
    expect(statuses.map(({ status, durationSeconds }) => [status, durationSeconds])).toEqual([
      ['ringing', undefined],
      ['answered', undefined],
      ['completed', 42],
    ]);
    const { url, authorization } = seen.at(-1)!;
    expect(url).toBe('/ari/events?app=switchboard_ab12cd34ef56&subscribeAll=false');
    expect(authorization).toBeDefined();
  });

  it('fails to open with the wrong password, as a non-retryable ProviderError', async () => {
    const wrong = { ...config, app_password: 'wrong' };
    const handlers = { onStatus: () => undefined, onClose: () => undefined };
    await expect(openAriEventStream(wrong, handlers, { apiBaseUrl: origin })).rejects.toMatchObject({
      name: 'ProviderError',
      status: 401,
      retryable: false,
    });
  });
});
