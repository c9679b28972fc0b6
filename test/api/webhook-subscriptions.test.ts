import request from 'supertest';
import { verifySignatureHeader } from '../../domain/webhooks/signature';
import { verifyV2 } from '../../domain/webhooks/signature-v2';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { useRecordingServer } from '../helpers/recording-server';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();

const receiver = useRecordingServer((path, res) => {
  if (path === '/down') res.writeHead(500, { 'content-type': 'text/plain' }).end('receiver unavailable');
  else if (path === '/gone') res.writeHead(410).end();
  else res.writeHead(200).end('ok');
});
const { seen } = receiver;

let app: TestServer;
/** The same service where private addresses are not allowed, as in production. */
let guarded: TestServer;
let owner: SignedUp;
let other: SignedUp;
beforeAll(async () => {
  app = services.server({
    SECRETS_KEY: TEST_SECRETS_KEY,
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    QUOTA_WEBHOOK_SUBSCRIPTIONS: '3',
  });
  guarded = services.server({ SECRETS_KEY: TEST_SECRETS_KEY, ALLOW_PRIVATE_WEBHOOKS: 'false' });
  owner = await signUp(app);
  other = await signUp(app);
});

const as = (server: TestServer, method: 'get' | 'post' | 'put' | 'delete', path: string, caller = owner) =>
  request(server)[method](`/api/v1${path}`).auth(caller.token, { type: 'bearer' });

const subscription = (path: string, events: string[] = ['call.ended']) => ({
  url: `${receiver.baseUrl}${path}`,
  events,
});

describe('webhook subscriptions', () => {
  it('are created, listed, read, replaced and deleted', async () => {
    const created = await as(app, 'post', '/webhook-subscriptions').send({
      ...subscription('/crm', ['call.started', 'call.ended']),
      description: 'CRM sync',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: `${receiver.baseUrl}/crm`,
      events: ['call.started', 'call.ended'],
      active: true,
      description: 'CRM sync',
    });
    const uuid = created.body.subscription_uuid as string;

    const listed = await as(app, 'get', '/webhook-subscriptions');
    expect(listed.status).toBe(200);
    const listedUuids = (listed.body as { subscriptions: { subscription_uuid: string }[] }).subscriptions.map(
      (s) => s.subscription_uuid,
    );
    expect(listedUuids).toContain(uuid);
    expect((await as(app, 'get', `/webhook-subscriptions/${uuid}`)).body).toEqual(created.body);

    const replaced = await as(app, 'put', `/webhook-subscriptions/${uuid}`).send({
      ...subscription('/crm2', ['campaign.paused', 'campaign.completed', 'call_analyzed']),
      active: false,
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      url: `${receiver.baseUrl}/crm2`,
      events: ['campaign.paused', 'campaign.completed', 'call_analyzed'],
      active: false,
      description: '',
    });

    const deleted = await as(app, 'delete', `/webhook-subscriptions/${uuid}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ status: 'deleted', subscription_uuid: uuid });
    expect((await as(app, 'get', `/webhook-subscriptions/${uuid}`)).status).toBe(404);
    expect((await as(app, 'delete', `/webhook-subscriptions/${uuid}`)).status).toBe(404);
  });

  it('refuse unknown, repeated or no events and URLs that are not http(s) (422)', async () => {
    const cases = [
      subscription('/x', []),
      subscription('/x', ['call.ringing']),
      subscription('/x', ['call.ended', 'call.ended']),
      { url: 'ftp://example.com/x', events: ['call.ended'] },
      { url: 'not a url', events: ['call.ended'] },
    ];
    for (const body of cases) {
      const res = await as(app, 'post', '/webhook-subscriptions').send(body);
      expect(res.status).toBe(422);
    }
  });

  it('refuse a private address where the service does not allow them, at save and at send', async () => {
    const refused = await as(guarded, 'post', '/webhook-subscriptions').send(subscription('/x'));
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('ALLOW_PRIVATE_WEBHOOKS');
    for (const url of ['http://169.254.169.254/latest', 'http://[::1]:8080/x', 'http://10.0.0.8/hook']) {
      expect((await as(guarded, 'post', '/webhook-subscriptions').send({ url, events: ['call.ended'] })).status).toBe(
        422,
      );
    }
    // Saved where private addresses were allowed, then tested by a service that refuses them.
    const saved = await as(app, 'post', '/webhook-subscriptions').send(subscription('/private'));
    const before = seen.length;
    const tested = await as(guarded, 'post', `/webhook-subscriptions/${saved.body.subscription_uuid}/test`);
    expect(tested.status).toBe(200);
    expect(tested.body.status).toBe('refused');
    expect(tested.body.attempts[0]).toMatchObject({ attempt: 1, status_code: null });
    expect(tested.body.attempts[0].error).toContain('ALLOW_PRIVATE_WEBHOOKS');
    expect(seen.length).toBe(before);
    await as(app, 'delete', `/webhook-subscriptions/${saved.body.subscription_uuid}`);
  });

  it('are the organization’s own: another organization gets 404 everywhere', async () => {
    const created = await as(app, 'post', '/webhook-subscriptions').send(subscription('/mine'));
    const uuid = created.body.subscription_uuid as string;
    for (const [method, path] of [
      ['get', `/webhook-subscriptions/${uuid}`],
      ['put', `/webhook-subscriptions/${uuid}`],
      ['delete', `/webhook-subscriptions/${uuid}`],
      ['post', `/webhook-subscriptions/${uuid}/test`],
      ['get', `/webhook-subscriptions/${uuid}/deliveries`],
    ] as const) {
      const res = await as(app, method, path, other).send(subscription('/theirs'));
      expect(res.status).toBe(404);
    }
    expect((await as(app, 'get', '/webhook-subscriptions', other)).body).toEqual({ subscriptions: [] });
    await as(app, 'delete', `/webhook-subscriptions/${uuid}`);
  });

  it('count against QUOTA_WEBHOOK_SUBSCRIPTIONS; deleting one makes room', async () => {
    const org = await signUp(app);
    const uuids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await as(app, 'post', '/webhook-subscriptions', org).send(subscription(`/q${i}`));
      expect(res.status).toBe(201);
      uuids.push(res.body.subscription_uuid as string);
    }
    const over = await as(app, 'post', '/webhook-subscriptions', org).send(subscription('/q3'));
    expect(over.status).toBe(409);
    expect(over.body.detail).toContain('QUOTA_WEBHOOK_SUBSCRIPTIONS');
    await as(app, 'delete', `/webhook-subscriptions/${uuids[0]}`, org);
    expect((await as(app, 'post', '/webhook-subscriptions', org).send(subscription('/q3'))).status).toBe(201);
  });

  it('follow API key scopes: a read key lists, only an admin key changes them', async () => {
    const key = await request(app)
      .post('/api/v1/user/api-keys')
      .auth(owner.token, { type: 'bearer' })
      .send({ name: 'reader', scope: 'read' });
    const reader = key.body.api_key as string;
    expect((await request(app).get('/api/v1/webhook-subscriptions').set('X-API-Key', reader)).status).toBe(200);
    const write = await request(app)
      .post('/api/v1/webhook-subscriptions')
      .set('X-API-Key', reader)
      .send(subscription('/x'));
    expect(write.status).toBe(403);
    expect(write.body.detail).toBe("This API key's scope is read; this route needs admin");
  });
});

describe('a test delivery', () => {
  let secret: string;
  beforeAll(async () => {
    const rotated = await as(app, 'post', '/organizations/webhook-signing-secret/rotate');
    secret = rotated.body.secret as string;
  });

  it('is sent now, signed with the organization’s secret, and kept in the delivery log', async () => {
    const created = await as(app, 'post', '/webhook-subscriptions').send({
      ...subscription('/hooks/test'),
      active: false,
    });
    const uuid = created.body.subscription_uuid as string;
    const tested = await as(app, 'post', `/webhook-subscriptions/${uuid}/test`);
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ event_type: 'webhook.test', status: 'delivered' });
    expect(tested.body.attempts).toEqual([
      { attempt: 1, status_code: 200, duration_ms: expect.any(Number), error: null, at: expect.any(String) },
    ]);

    const delivery = seen.filter((entry) => entry.url.endsWith('/hooks/test')).at(-1);
    if (!delivery) throw new Error('the receiver got nothing');
    expect(delivery.method).toBe('POST');
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['webhook-id']).toBe(tested.body.delivery_uuid);
    expect(delivery.headers['x-switchboard-delivery']).toBe(tested.body.delivery_uuid);
    expect(delivery.headers['x-switchboard-event']).toBe('webhook.test');
    const key = Buffer.from(secret, 'utf8');
    expect(verifyV2(key, delivery)).toBe(true);
    expect(verifyV2(Buffer.from('whsec_someone-else', 'utf8'), delivery)).toBe(false);
    expect(verifySignatureHeader(key, delivery.body, delivery.headers['x-switchboard-signature'] ?? '')).toBe(true);
    const body = JSON.parse(delivery.body) as Record<string, unknown>;
    expect(body).toEqual({
      id: tested.body.event_id,
      type: 'webhook.test',
      created_at: expect.any(String),
      data: { subscription_uuid: uuid, message: 'A test delivery from Switchboard' },
    });
    expect(tested.body.payload).toEqual(body);

    const log = await as(app, 'get', `/webhook-subscriptions/${uuid}/deliveries`);
    expect(log.status).toBe(200);
    expect(log.body.deliveries).toEqual([tested.body]);
  });

  it('to a failing receiver says what came back, once (no retries)', async () => {
    const down = await as(app, 'post', '/webhook-subscriptions').send(subscription('/down'));
    const tested = await as(app, 'post', `/webhook-subscriptions/${down.body.subscription_uuid}/test`);
    expect(tested.body.status).toBe('failed');
    expect(tested.body.attempts).toHaveLength(1);
    expect(tested.body.attempts[0]).toMatchObject({ status_code: 500 });
    expect(tested.body.attempts[0].error).toContain('answered 500: receiver unavailable');

    const gone = await as(app, 'post', '/webhook-subscriptions').send(subscription('/gone'));
    const refused = await as(app, 'post', `/webhook-subscriptions/${gone.body.subscription_uuid}/test`);
    expect(refused.body).toMatchObject({ status: 'failed', attempts: [{ status_code: 410 }] });

    const log = await as(app, 'get', `/webhook-subscriptions/${down.body.subscription_uuid}/deliveries?limit=1`);
    expect(log.body.deliveries).toHaveLength(1);
    expect(
      (await as(app, 'get', `/webhook-subscriptions/${down.body.subscription_uuid}/deliveries?limit=0`)).status,
    ).toBe(422);
  });
});
