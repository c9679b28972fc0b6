import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import request from 'supertest';
import { WebSocketServer } from 'ws';
import { ariProvider, openAriEventStream } from '../../telephony/providers/ari';
import { ARI_MAX_EVENT_BYTES, ariEndpointPolicy } from '../../telephony/providers/ari/endpoint';
import { Secrets } from '../../telephony/secrets';
import { signalCallStatus } from '../../domain/calls/call-status-signal';
import { AriListener } from '../../telephony/providers/ari/listener';
import { signUp, type SignedUp } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';
import { createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const server = () => services.server({ SECRETS_KEY: TEST_SECRETS_KEY });

/** An internal service on loopback that a tenant would like the worker to reach. */
let internal: Server;
let internalUrl: string;
const reached: IncomingMessage[] = [];
let owner: SignedUp;

beforeAll(async () => {
  internal = createServer((req, res) => {
    reached.push(req);
    res.end('{"secret":"internal"}');
  });
  await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
  internalUrl = `http://127.0.0.1:${(internal.address() as AddressInfo).port}`;
  owner = await signUp(server());
});

afterAll(async () => {
  await new Promise<void>((resolve) => internal.close(() => resolve()));
});

const ariConfig = (endpoint: string) => ({
  ari_endpoint: endpoint,
  app_name: 'switchboard',
  app_password: 'stored-ari-password',
  ws_client_name: '',
  dial_string_template: 'PJSIP/{number}',
  stasis_app_name: 'switchboard_abcdef012345',
});

describe('an ARI endpoint at an internal address', () => {
  it.each([
    ['loopback', () => internalUrl],
    ['IPv4-mapped loopback', () => internalUrl.replace('127.0.0.1', '[::ffff:127.0.0.1]')],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data'],
  ])('(%s) gets no REST call from the worker', async (_what, endpoint) => {
    // What the worker's call activities build: the operator has not allowed private endpoints.
    const ari = ariProvider.create(ariConfig(endpoint()), { endpointPolicy: ariEndpointPolicy(false) });
    await expect(
      ari.originate({
        runId: 1,
        to: '+14155550100',
        from: null,
        idempotencyKey: 'attack',
        statusCallbackUrl: 'https://switchboard.example.com/status',
        answerUrl: 'https://switchboard.example.com/answer',
      } as Parameters<typeof ari.originate>[0]),
    ).rejects.toMatchObject({ name: 'ProviderError', retryable: false, message: /ALLOW_PRIVATE_ARI_ENDPOINTS/ });
    expect(reached).toHaveLength(0);
  });

  it('gets no events WebSocket from the worker’s ARI listener', async () => {
    const sockets = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => sockets.once('listening', resolve));
    let upgrades = 0;
    sockets.on('connection', () => (upgrades += 1));
    const endpoint = `http://127.0.0.1:${(sockets.address() as AddressInfo).port}`;
    await createTelephonyConfig(server(), owner.token, { provider: 'ari', ...ariConfig(endpoint) });
    const logs: string[] = [];
    // As the worker builds it: ALLOW_PRIVATE_ARI_ENDPOINTS unset.
    const listener = new AriListener({
      dataSource: services.db.dataSource,
      signalCallStatus: (run, status) => signalCallStatus(services.temporal.client, run, status),
      secrets: new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex')),
      logger: pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) }),
      reconnectMs: 50,
      maxReconnectMs: 100,
    });
    await listener.start();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await listener.stop();
    await new Promise<void>((resolve) => sockets.close(() => resolve()));
    expect(upgrades).toBe(0);
    expect(logs.join('\n')).toMatch(/private or reserved address/);
  });

  it('is reached when the operator allows private endpoints', async () => {
    const ari = ariProvider.create(ariConfig(internalUrl), { endpointPolicy: ariEndpointPolicy(true) });
    await ari.hangup('some-channel');
    expect(reached.map((req) => req.method)).toEqual(['DELETE']);
    reached.length = 0;
  });
});

describe('the events WebSocket', () => {
  it(`closes a connection whose server sends a frame over ${ARI_MAX_EVENT_BYTES} bytes`, async () => {
    const sockets = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => sockets.once('listening', resolve));
    sockets.on('connection', (socket) => socket.send('x'.repeat(ARI_MAX_EVENT_BYTES + 1)));
    const endpoint = `http://127.0.0.1:${(sockets.address() as AddressInfo).port}`;
    const closed = new Promise<number>((resolve) => {
      void openAriEventStream(
        ariConfig(endpoint),
        { onStatus: () => undefined, onClose: resolve },
        { endpointPolicy: ariEndpointPolicy(true) },
      );
    });
    // The client fails the connection (1009, message too big; seen locally as 1006) instead of buffering it.
    expect([1006, 1009]).toContain(await closed);
    await new Promise<void>((resolve) => sockets.close(() => resolve()));
  });
});

describe('PUT of a telephony configuration that moves its ARI endpoint', () => {
  const put = (id: number, body: object) =>
    request(server())
      .put(`/api/v1/organizations/telephony-configs/${id}`)
      .auth(owner.token, { type: 'bearer' })
      .send(body);

  it('answers 422 unless the password is sent again, and keeps the stored endpoint', async () => {
    const created = await createTelephonyConfig(server(), owner.token, {
      provider: 'ari',
      ...ariConfig('https://pbx.example.com:8089'),
    });
    const masked = created.credentials.app_password;

    const moved = await put(created.id, {
      config: { provider: 'ari', ari_endpoint: 'https://attacker.example.net', app_password: masked },
    });
    expect(moved.status).toBe(422);
    expect(moved.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'config', 'app_password'], type: 'secret_required' }),
    ]);
    const omitted = await put(created.id, {
      config: { provider: 'ari', ari_endpoint: 'https://attacker.example.net' },
    });
    expect(omitted.status).toBe(422);
    const stored = await request(server())
      .get(`/api/v1/organizations/telephony-configs/${created.id}`)
      .auth(owner.token, { type: 'bearer' });
    expect(stored.body.credentials.ari_endpoint).toBe('https://pbx.example.com:8089');

    const withPassword = await put(created.id, {
      config: { provider: 'ari', ari_endpoint: 'https://pbx2.example.com:8089', app_password: 'a-new-password' },
    });
    expect(withPassword.status).toBe(200);
    expect(withPassword.body.credentials.ari_endpoint).toBe('https://pbx2.example.com:8089');

    const sameEndpoint = await put(created.id, {
      config: { provider: 'ari', app_name: 'renamed', app_password: masked },
    });
    expect(sameEndpoint.status).toBe(200);
  });
});
