import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { SignJWT } from 'jose';
import request from 'supertest';
import { acceptAriStasisStart } from '../../domain/calls/inbound';
import { listOptOut } from '../../domain/compliance/do-not-call';
import { createTelephonyServices } from '../../domain/telephony/telephony-services';
import { Run, TelephonyConfiguration } from '../../entities';
import { plivoV3Signature } from '../../telephony/providers/plivo-compatible/signature-v3';
import { simulatorSignature } from '../../telephony/providers/simulator/webhook';
import { twilioSignature } from '../../telephony/providers/twilio/signature';
import { vobizV3Signature } from '../../telephony/providers/vobiz/signature';
import { Secrets } from '../../telephony/secrets';
import { mediaTokenKey, verifyMediaToken } from '../../voice/media-token';
import { buildTestApp } from '../helpers/app';
import type { TestServer } from '../helpers/accounts';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { createPhoneNumber, createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';
import { decryptedPayload, terminateAll, uniqueTaskQueue } from '../helpers/temporal';
import { FakeProviderServer } from '../telephony/helpers/fake-provider-server';

const services = useTestServices();
const BASE = 'https://sb.example.com';
const simulatorKey = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex')).deriveKey('simulator-webhooks');
const mediaKey = mediaTokenKey(new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex')));

const withoutMediaToken = (text: string) => text.replace(/(\/media\/\d+)(?:\/|\?token=)[0-9A-Za-z._-]+/g, '$1/<token>');

/** The media URL in a provider reply, with a token valid for exactly this provider and run. */
function expectMediaUrl(text: string, provider: string, runId: number): void {
  const base = `wss://sb.example.com/api/v1/telephony/${provider}/media/${runId}`;
  // Twilio's token is a path segment (its <Stream url> takes no query); the others' a `token` query.
  const token = new RegExp(`${base.replace(/[.?/]/g, '\\$&')}(?:/|\\?token=)([0-9A-Za-z._-]+)`).exec(text)?.[1];
  expect(token).toBeDefined();
  expect(verifyMediaToken(mediaKey, token ?? '', { provider, runId })).toBe('valid');
}
const telnyxKeys = generateKeyPairSync('ed25519');
const telnyxPublicKey = telnyxKeys.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
const VONAGE_SECRET = 'qwertyuiopasdfghjklzxcvbnm123456';

let fake: FakeProviderServer;
let app: TestServer;
let built: ReturnType<typeof buildTestApp>;
let org: CallingOrganization;
const taskQueue = uniqueTaskQueue('inbound-api');
const startedWorkflows: string[] = [];

interface Signed {
  contentType: string;
  body: string;
  headers: Record<string, string>;
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const nonce = () => String(Math.floor(Math.random() * 1e15)).padStart(20, '0');
const vonageJwt = async (body: string, secret = VONAGE_SECRET) =>
  new SignJWT({ payload_hash: createHash('sha256').update(body).digest('hex'), api_key: 'abcd1234' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setJti(randomUUID())
    .sign(new TextEncoder().encode(secret));
const telnyxHeaders = (body: string) => {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return {
    'telnyx-timestamp': timestamp,
    'telnyx-signature-ed25519': sign(null, Buffer.from(`${timestamp}|${body}`), telnyxKeys.privateKey).toString(
      'base64',
    ),
  };
};

interface ProviderCase {
  provider: string;
  config: Record<string, unknown>;
  /** Our number, stored in E.164. */
  address: string;
  /** The inbound webhook for a call to `to` (as the provider writes it), validly signed. */
  inbound(to: string, callId: string): Promise<Signed>;
  /** How the provider writes our number. */
  written(address: string): string;
  /** The polite reject in the reply body. */
  reject: string;
}

const inboundUrl = (provider: string) => `${BASE}/api/v1/telephony/${provider}/inbound`;

const cases: ProviderCase[] = [
  {
    provider: 'twilio',
    config: { account_sid: 'AC0123456789abcdef0123456789abcdef', auth_token: 'twilio-token' },
    address: '+14155551001',
    written: (address) => address,
    inbound(to, callId) {
      const fields = { CallSid: callId, To: to, From: '+14155550199', Direction: 'inbound', CallStatus: 'ringing' };
      const signature = twilioSignature('twilio-token', inboundUrl('twilio'), Object.entries(fields));
      return Promise.resolve({
        contentType: 'application/x-www-form-urlencoded',
        body: form(fields),
        headers: { 'x-twilio-signature': signature },
      });
    },
    reject: '<Reject reason="rejected"/>',
  },
  {
    provider: 'plivo',
    config: { auth_id: 'MAPLIVO0000000000001', auth_token: 'plivo-token' },
    address: '+14155551002',
    written: (address) => address.slice(1),
    inbound(to, callId) {
      const fields = { CallUUID: callId, To: to, From: '14155550199', Direction: 'inbound', Event: 'StartApp' };
      const n = nonce();
      const signature = plivoV3Signature('plivo-token', 'POST', inboundUrl('plivo'), Object.entries(fields), n);
      return Promise.resolve({
        contentType: 'application/x-www-form-urlencoded',
        body: form(fields),
        headers: { 'x-plivo-signature-v3': signature, 'x-plivo-signature-v3-nonce': n },
      });
    },
    reject: '<Hangup reason="rejected"/>',
  },
  {
    provider: 'vobiz',
    config: { auth_id: 'MAVOBIZ0000000000001', auth_token: 'vobiz-token' },
    address: '+14155551003',
    written: (address) => address.slice(1),
    inbound(to, callId) {
      const fields = { CallUUID: callId, To: to, From: '14155550199', Direction: 'inbound', Event: 'StartApp' };
      const n = nonce();
      return Promise.resolve({
        contentType: 'application/x-www-form-urlencoded',
        body: form(fields),
        headers: {
          'x-vobiz-signature-v3': vobizV3Signature('vobiz-token', inboundUrl('vobiz'), n),
          'x-vobiz-signature-v3-nonce': n,
        },
      });
    },
    reject: '<Hangup reason="rejected"/>',
  },
  {
    provider: 'vonage',
    config: {
      api_key: 'abcd1234',
      api_secret: 'secret',
      application_id: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
      private_key: 'not-used-here',
      signature_secret: VONAGE_SECRET,
    },
    address: '+14155551004',
    written: (address) => address.slice(1),
    async inbound(to, callId) {
      const body = JSON.stringify({ to, from: '14155550199', uuid: callId, conversation_uuid: `CON-${callId}` });
      return { contentType: 'application/json', body, headers: { authorization: `Bearer ${await vonageJwt(body)}` } };
    },
    reject: '"action":"talk"',
  },
  {
    provider: 'telnyx',
    config: { api_key: 'KEYTELNYX', connection_id: 'conn-1', webhook_public_key: telnyxPublicKey },
    address: '+14155551005',
    written: (address) => address,
    inbound(to, callId) {
      const body = JSON.stringify({
        data: {
          event_type: 'call.initiated',
          payload: {
            call_control_id: callId,
            direction: 'incoming',
            from: '+14155550199',
            to,
            connection_id: 'conn-1',
          },
        },
      });
      return Promise.resolve({ contentType: 'application/json', body, headers: telnyxHeaders(body) });
    },
    reject: '{"status":"received"}',
  },
  {
    provider: 'cloudonix',
    config: { bearer_token: 'XI-cloudonix-key', domain_id: 'acme' },
    address: '+14155551006',
    written: (address) => address,
    inbound(to, callId) {
      const body = JSON.stringify({ CallSid: callId, To: to, From: '+14155550199', Direction: 'inbound' });
      return Promise.resolve({ contentType: 'application/json', body, headers: { 'x-cx-apikey': 'XI-cloudonix-key' } });
    },
    reject: '<Reject reason="rejected"/>',
  },
  {
    provider: 'simulator',
    config: {},
    address: '+14155551007',
    written: (address) => address,
    inbound(to, callId) {
      const body = JSON.stringify({ call_id: callId, from: '+14155550199', to });
      return Promise.resolve({
        contentType: 'application/json',
        body,
        headers: { 'x-simulator-signature': simulatorSignature(simulatorKey, body) },
      });
    },
    reject: '{"action":"reject"}',
  },
];

/** Per provider: the configuration id and the ids of a bound and an unbound number. */
const setup = new Map<string, { configId: number; boundAddress: string; unboundAddress: string }>();

const unboundAddressOf = (address: string) => address.replace('+1415555100', '+1415555200');

beforeAll(async () => {
  fake = await FakeProviderServer.start();
  built = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    {
      TEMPORAL_TASK_QUEUE: taskQueue,
      PUBLIC_BASE_URL: BASE,
      SECRETS_KEY: TEST_SECRETS_KEY,
      TELEPHONY_API_BASE_URL: fake.url,
    },
  );
  app = built.app.callback();
  org = await callingOrganization(app);
  for (const item of cases) {
    const configuration = await createTelephonyConfig(app, org.owner.token, {
      provider: item.provider,
      ...item.config,
    });
    const bound = await createPhoneNumber(app, org.owner.token, configuration.id, { address: item.address });
    const unboundAddress = unboundAddressOf(item.address);
    await createPhoneNumber(app, org.owner.token, configuration.id, { address: unboundAddress });
    // Bound in SQL: binding through the API would push the URL to the provider, which is not under test here.
    await services.db.dataSource.query('UPDATE phone_numbers SET inbound_workflow_id = $1 WHERE id = $2', [
      org.agent.id,
      bound.id,
    ]);
    setup.set(item.provider, { configId: configuration.id, boundAddress: item.address, unboundAddress });
  }
});

afterAll(async () => {
  // No worker serves this file's task queue: end the workflows it started.
  await terminateAll(services.temporal.client, startedWorkflows);
  await fake.close();
});
beforeEach(() => fake.reset());

const post = (path: string, signed: Signed) =>
  request(app).post(path).set('content-type', signed.contentType).set(signed.headers).send(signed.body);

const runsOfCall = (provider: string, callId: string) =>
  services.db.dataSource.getRepository(Run).findBy({ provider, providerCallId: callId });

const workflowInput = async (workflowId: string) => {
  const history = await services.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return payload ? defaultPayloadConverter.fromPayload<Record<string, unknown>>(decryptedPayload(payload)) : null;
};

describe.each(cases)('POST /telephony/$provider/inbound', (item) => {
  it('starts an inbound run and workflow for a bound number and answers with the stream markup', async () => {
    const callId = `${item.provider}-${randomUUID()}`;
    if (item.provider === 'telnyx') fake.answer({ status: 200, body: { data: { result: 'ok' } } });
    const res = await post(
      `/api/v1/telephony/${item.provider}/inbound`,
      await item.inbound(item.written(item.address), callId),
    );
    expect(res.status).toBe(200);

    const [run, ...others] = await runsOfCall(item.provider, callId);
    expect(others).toEqual([]);
    if (!run) throw new Error('no inbound run');
    startedWorkflows.push(`call-${run.id}`);
    expect(run).toMatchObject({
      organizationId: org.owner.user.organization_id,
      agentId: org.agent.id,
      agentVersionId: org.agent.current_definition_id,
      name: `call-${run.id}`,
      callType: 'inbound',
      state: 'running',
      isCompleted: false,
      calledNumber: item.address,
      callerNumber: '+14155550199',
      temporalWorkflowId: `call-${run.id}`,
      telephonyConfigurationId: setup.get(item.provider)?.configId,
    });
    expect(run.initialContext).toEqual({
      called_number: item.address,
      caller_number: '+14155550199',
      direction: 'inbound',
      provider: item.provider,
    });

    if (item.provider === 'telnyx') {
      expect(res.body).toEqual({ status: 'received' });
      const command = fake.onlyRequest();
      expect(command.path).toBe(`/v2/calls/${encodeURIComponent(callId)}/actions/answer`);
      expect(JSON.parse(command.body)).toMatchObject({
        stream_url: expect.any(String),
        webhook_url: `${BASE}/api/v1/telephony/telnyx/status/${run.id}`,
      });
      expectMediaUrl((JSON.parse(command.body) as { stream_url: string }).stream_url, item.provider, run.id);
    } else {
      expectMediaUrl(res.text, item.provider, run.id);
    }

    const input = await workflowInput(`call-${run.id}`);
    expect(input).toEqual({
      runId: run.id,
      attempt: 1,
      maxDurationSeconds: 300,
      direction: 'inbound',
      providerCallId: callId,
      provider: item.provider,
      // A carrier's call carries audio: its conversation runs on the media stream; the simulator
      // here has no audio, so its callee is the text-only one.
      conversation: item.provider === 'simulator' ? 'simulated' : 'live',
    });
    const description = await services.temporal.client.workflow.getHandle(`call-${run.id}`).describe();
    expect(description.taskQueue).toBe(taskQueue);
  });

  it('answers a repeated webhook with the same run and starts no second workflow', async () => {
    const callId = `${item.provider}-${randomUUID()}`;
    if (item.provider === 'telnyx') fake.answer({ status: 200, body: {} }, { status: 200, body: {} });
    const first = await post(
      `/api/v1/telephony/${item.provider}/inbound`,
      await item.inbound(item.written(item.address), callId),
    );
    const again = await post(
      `/api/v1/telephony/${item.provider}/inbound`,
      await item.inbound(item.written(item.address), callId),
    );
    expect([first.status, again.status]).toEqual([200, 200]);
    const runs = await runsOfCall(item.provider, callId);
    expect(runs).toHaveLength(1);
    startedWorkflows.push(`call-${runs[0]?.id}`);
    // The same markup, but for the media token: its expiry (in seconds) is counted from each answer.
    expect(withoutMediaToken(again.text)).toBe(withoutMediaToken(first.text));
  });

  it('answers 403 to a bad signature and creates nothing', async () => {
    const callId = `${item.provider}-${randomUUID()}`;
    const signed = await item.inbound(item.written(item.address), callId);
    // Every signature (or key) header altered; nonces and timestamps kept.
    const headers = Object.fromEntries(
      Object.entries(signed.headers).map(([name, value]) => [
        name,
        /nonce|timestamp/.test(name) ? value : `${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`,
      ]),
    );
    const res = await post(`/api/v1/telephony/${item.provider}/inbound`, { ...signed, headers });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Invalid signature' });
    expect(await runsOfCall(item.provider, callId)).toEqual([]);
  });

  it('refuses a call to an unbound number politely', async () => {
    const callId = `${item.provider}-${randomUUID()}`;
    if (item.provider === 'telnyx') fake.answer({ status: 200, body: {} });
    const unbound = setup.get(item.provider)?.unboundAddress ?? '';
    const res = await post(
      `/api/v1/telephony/${item.provider}/inbound`,
      await item.inbound(item.written(unbound), callId),
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain(item.reject);
    expect(await runsOfCall(item.provider, callId)).toEqual([]);
    if (item.provider === 'telnyx') {
      expect(fake.onlyRequest().path).toBe(`/v2/calls/${encodeURIComponent(callId)}/actions/reject`);
    }
  });

  it('refuses a call to a number nobody holds', async () => {
    const callId = `${item.provider}-${randomUUID()}`;
    const res = await post(
      `/api/v1/telephony/${item.provider}/inbound`,
      await item.inbound(item.written('+14155559999'), callId),
    );
    expect(res.status).toBe(200);
    expect(res.text).toContain(item.reject);
    expect(await runsOfCall(item.provider, callId)).toEqual([]);
    // Refusing a Telnyx call takes credentials, which an unknown number has none of.
    expect(fake.requests).toEqual([]);
  });
});

describe('POST /telephony/{provider}/inbound, other cases', () => {
  it('refuses calls to an inactive number and to a number bound to an archived agent', async () => {
    const twilio = cases[0]!;
    await services.db.dataSource.query(`UPDATE phone_numbers SET is_active = false WHERE address_normalized = $1`, [
      twilio.address,
    ]);
    const inactive = await post(
      '/api/v1/telephony/twilio/inbound',
      await twilio.inbound(twilio.address, `CA${randomUUID()}`),
    );
    await services.db.dataSource.query(`UPDATE phone_numbers SET is_active = true WHERE address_normalized = $1`, [
      twilio.address,
    ]);
    expect(inactive.text).toContain(twilio.reject);

    await services.db.dataSource.query(`UPDATE agents SET status = 'archived' WHERE id = $1`, [org.agent.id]);
    const archived = await post(
      '/api/v1/telephony/twilio/inbound',
      await twilio.inbound(twilio.address, `CA${randomUUID()}`),
    );
    await services.db.dataSource.query(`UPDATE agents SET status = 'active' WHERE id = $1`, [org.agent.id]);
    expect(archived.text).toContain(twilio.reject);
    expect(await services.db.dataSource.getRepository(Run).countBy({ provider: 'twilio', callType: 'inbound' })).toBe(
      2,
    );
  });

  it('acknowledges Telnyx events that announce no new call', async () => {
    const body = JSON.stringify({ data: { event_type: 'call.hangup', payload: { call_control_id: 'v3:x' } } });
    const res = await post('/api/v1/telephony/telnyx/inbound', { contentType: 'application/json', body, headers: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'received' });
  });

  it('answers 400 to a payload that is not an inbound call, and 404 to unknown providers and ARI', async () => {
    const bad = await post('/api/v1/telephony/twilio/inbound', {
      contentType: 'application/x-www-form-urlencoded',
      body: 'To=%2B14155551001',
      headers: {},
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ detail: 'Twilio inbound webhook has no CallSid' });
    const unknown = await request(app).post('/api/v1/telephony/nope/inbound').send({});
    expect(unknown.status).toBe(404);
    const ari = await request(app).post('/api/v1/telephony/ari/inbound').send({});
    expect(ari.status).toBe(404);
  });

  it('answers 502 when Telnyx refuses the answer command, and the workflow hears the call failed', async () => {
    const telnyx = cases.find((item) => item.provider === 'telnyx')!;
    const callId = `v3:${randomUUID()}`;
    fake.answer({ status: 422, body: { errors: [{ title: 'Call has already ended' }] } });
    const res = await post('/api/v1/telephony/telnyx/inbound', await telnyx.inbound(telnyx.address, callId));
    expect(res.status).toBe(502);
    expect(res.body.detail).toContain('Call has already ended');
    const [run] = await runsOfCall('telnyx', callId);
    startedWorkflows.push(`call-${run?.id}`);
    const history = await services.temporal.client.workflow.getHandle(`call-${run?.id}`).fetchHistory();
    const signalled = history.events?.find((event) => event.workflowExecutionSignaledEventAttributes);
    expect(signalled?.workflowExecutionSignaledEventAttributes?.signalName).toBe('callStatus');
  });
});

describe('the outbound answer URL', () => {
  const outboundRun = async (provider: string) => {
    const res = await request(app)
      .post(`/api/v1/public/agent/${org.triggerPath}`)
      .set('X-API-Key', org.apiKey)
      .send({ phone_number: '+14155550123', telephony_configuration_id: setup.get(provider)?.configId });
    expect(res.status).toBe(200);
    const runId = res.body.workflow_run_id as number;
    startedWorkflows.push(`call-${runId}`);
    return runId;
  };

  it('gives Twilio (POST) the stream markup of the run', async () => {
    const runId = await outboundRun('twilio');
    const url = `${BASE}/api/v1/telephony/twilio/answer/${runId}`;
    const fields = { CallSid: 'CA-out', CallStatus: 'in-progress' };
    const signature = twilioSignature('twilio-token', url, Object.entries(fields));
    const res = await post(`/api/v1/telephony/twilio/answer/${runId}`, {
      contentType: 'application/x-www-form-urlencoded',
      body: form(fields),
      headers: { 'x-twilio-signature': signature },
    });
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/xml');
    expect(res.text).toMatch(
      new RegExp(`<Stream url="wss://sb\\.example\\.com/api/v1/telephony/twilio/media/${runId}/[^"?]+">`),
    );
    expectMediaUrl(res.text, 'twilio', runId);

    const forged = await post(`/api/v1/telephony/twilio/answer/${runId}`, {
      contentType: 'application/x-www-form-urlencoded',
      body: form(fields),
      headers: { 'x-twilio-signature': 'bm90IGl0' },
    });
    expect(forged.status).toBe(403);
  });

  /** An outbound Vonage run whose call Vonage knows as `uuid` (as placeCall records it). */
  const placedVonageRun = async (uuid: string) => {
    const runId = await outboundRun('vonage');
    await services.db.dataSource.query('UPDATE runs SET provider_call_id = $2 WHERE id = $1', [runId, uuid]);
    return runId;
  };

  it('gives Vonage (GET answer_url) the NCCO of the run, and 404 for unknown runs', async () => {
    const runId = await placedVonageRun('u-out');
    const jwt = await vonageJwt('');
    const res = await request(app)
      .get(`/api/v1/telephony/vonage/answer/${runId}?to=14155550123&from=14155551004&uuid=u-out`)
      .set('authorization', `Bearer ${jwt}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      expect.objectContaining({
        action: 'connect',
        endpoint: [
          expect.objectContaining({
            uri: expect.stringMatching(`^wss://sb.example.com/api/v1/telephony/vonage/media/${runId}\\?token=`),
          }),
        ],
      }),
    ]);
    expectMediaUrl(res.text, 'vonage', runId);
    const unknown = await request(app)
      .get('/api/v1/telephony/vonage/answer/999999999')
      .set('authorization', `Bearer ${await vonageJwt('')}`);
    expect(unknown.status).toBe(404);
    const wrongProvider = await request(app).get(`/api/v1/telephony/twilio/answer/${runId}`);
    expect(wrongProvider.status).toBe(404);
  });

  it("refuses a Vonage answer token replayed, lifted onto another run, or naming another call: no run's media token leaks", async () => {
    const victim = await placedVonageRun(`u-${randomUUID()}`);
    const attacker = await placedVonageRun(`u-${randomUUID()}`);
    const uuidOf = async (runId: number) =>
      (await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId })).providerCallId ?? '';
    const answer = (runId: number, uuid: string, jwt: string) =>
      request(app)
        .get(`/api/v1/telephony/vonage/answer/${runId}?to=14155550123&from=14155551004&uuid=${uuid}`)
        .set('authorization', `Bearer ${jwt}`);

    // A token seen on the attacker's own answer request, replayed to the victim's run, with the victim's uuid.
    const seen = await vonageJwt('');
    expect((await answer(attacker, await uuidOf(attacker), seen)).status).toBe(200);
    const lifted = await answer(victim, await uuidOf(victim), seen);
    expect(lifted.status).toBe(403);
    expect(lifted.text).not.toContain('token=');
    // A fresh token naming another call than the run's.
    expect((await answer(victim, await uuidOf(attacker), await vonageJwt(''))).status).toBe(403);
    expect((await answer(victim, '', await vonageJwt(''))).status).toBe(403);
    // A run whose call is not placed yet (no uuid recorded) answers nothing.
    const unplaced = await outboundRun('vonage');
    expect((await answer(unplaced, 'u-anything', await vonageJwt(''))).status).toBe(403);
    // The genuine request: the run's call, a token used once.
    const genuine = await vonageJwt('');
    expect((await answer(victim, await uuidOf(victim), genuine)).status).toBe(200);
    expect((await answer(victim, await uuidOf(victim), genuine)).status).toBe(403);
  });
});

describe('POST /telephony/vonage/events', () => {
  const vonage = cases.find((item) => item.provider === 'vonage')!;
  const event = async (payload: object, secret = VONAGE_SECRET): Promise<Signed> => {
    const body = JSON.stringify(payload);
    return {
      contentType: 'application/json',
      body,
      headers: { authorization: `Bearer ${await vonageJwt(body, secret)}` },
    };
  };

  it("signals an inbound call's events to its workflow by the call uuid", async () => {
    const uuid = randomUUID();
    await post('/api/v1/telephony/vonage/inbound', await vonage.inbound(vonage.written(vonage.address), uuid));
    const [run] = await runsOfCall('vonage', uuid);
    startedWorkflows.push(`call-${run?.id}`);

    const forged = await post(
      '/api/v1/telephony/vonage/events',
      await event({ uuid, status: 'completed' }, 'x'.repeat(32)),
    );
    expect(forged.status).toBe(403);

    const res = await post(
      '/api/v1/telephony/vonage/events',
      await event({ uuid, status: 'completed', duration: '5', direction: 'inbound' }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'received' });
    const history = await services.temporal.client.workflow.getHandle(`call-${run?.id}`).fetchHistory();
    const signal = history.events?.find(
      (item) => item.workflowExecutionSignaledEventAttributes,
    )?.workflowExecutionSignaledEventAttributes;
    expect(signal?.signalName).toBe('callStatus');
    const payload = signal?.input?.payloads?.[0];
    expect(payload && defaultPayloadConverter.fromPayload(decryptedPayload(payload))).toEqual({
      status: 'completed',
      providerCallId: uuid,
      durationSeconds: 5,
    });
  });

  it('answers 200 to events of unknown calls (other legs) and 400 to a body that is not JSON', async () => {
    const res = await post('/api/v1/telephony/vonage/events', await event({ uuid: randomUUID(), status: 'answered' }));
    expect(res.status).toBe(200);
    const bad = await request(app).post('/api/v1/telephony/vonage/events').set('content-type', 'text/plain').send('x');
    expect(bad.status).toBe(400);
  });
});

describe('ARI StasisStart (for the worker listener)', () => {
  it('creates the inbound run, starts its workflow and answers the channel over ARI', async () => {
    const configuration = await createTelephonyConfig(app, org.owner.token, {
      provider: 'ari',
      ari_endpoint: fake.url,
      app_name: 'sb',
      app_password: 'pw',
    });
    const number = await createPhoneNumber(app, org.owner.token, configuration.id, { address: '+14155551008' });
    await services.db.dataSource.query('UPDATE phone_numbers SET inbound_workflow_id = $1 WHERE id = $2', [
      org.agent.id,
      number.id,
    ]);
    const stored = await services.db.dataSource
      .getRepository(TelephonyConfiguration)
      .findOneByOrFail({ id: configuration.id });
    const telephony = createTelephonyServices(built.deps);
    const deps = {
      dataSource: services.db.dataSource,
      temporal: services.temporal.client,
      taskQueue,
      publicBaseUrl: BASE,
      secrets: telephony.secrets,
      adapterFor: (row: TelephonyConfiguration) => telephony.adapterFor(row),
    };
    const channelId = `1700.${Math.floor(Math.random() * 1e6)}`;
    const event = (exten: string, args: string[] = []) =>
      JSON.stringify({
        type: 'StasisStart',
        args,
        channel: { id: channelId, state: 'Ring', caller: { number: '+14155550199' }, dialplan: { exten } },
      });

    fake.answer({ status: 204 });
    const outcome = await acceptAriStasisStart(deps, stored, event('+14155551008'));
    expect(outcome).toMatchObject({ answered: true });
    expect(fake.onlyRequest()).toMatchObject({ method: 'POST', path: `/ari/channels/${channelId}/answer` });
    const [run] = await runsOfCall('ari', channelId);
    expect(run).toMatchObject({ callType: 'inbound', calledNumber: '+14155551008' });
    startedWorkflows.push(`call-${run?.id}`);

    fake.reset();
    fake.answer({ status: 204 });
    const unknown = await acceptAriStasisStart(deps, stored, event('+14155559999'));
    expect(unknown).toMatchObject({ answered: false });
    expect(fake.onlyRequest()).toMatchObject({ method: 'DELETE', path: `/ari/channels/${channelId}` });
    expect(await acceptAriStasisStart(deps, stored, event('+14155551008', ['run_id=5']))).toBeNull();
  });
});

describe("opt-outs of inbound callers, by whether the provider verified the caller's number", () => {
  /** An answered Twilio inbound call from `from`, with `StirVerstat` when given; answers its run. */
  async function twilioCallFrom(from: string, stirVerstat?: string): Promise<Run> {
    const callId = `CA${randomUUID().replace(/-/g, '')}`;
    const fields = {
      CallSid: callId,
      To: '+14155551001',
      From: from,
      Direction: 'inbound',
      CallStatus: 'ringing',
      ...(stirVerstat ? { StirVerstat: stirVerstat } : {}),
    };
    const res = await post('/api/v1/telephony/twilio/inbound', {
      contentType: 'application/x-www-form-urlencoded',
      body: form(fields),
      headers: { 'x-twilio-signature': twilioSignature('twilio-token', inboundUrl('twilio'), Object.entries(fields)) },
    });
    expect(res.status).toBe(200);
    const [run] = await runsOfCall('twilio', callId);
    if (!run) throw new Error('no inbound run');
    startedWorkflows.push(`call-${run.id}`);
    return run;
  }

  const listed = async (number: string) => {
    const res = await request(app).get('/api/v1/organizations/do-not-call?limit=100').set('X-API-Key', org.apiKey);
    expect(res.status).toBe(200);
    return (
      res.body as { numbers: { phone_number: string; source: string; caller_id_verified: boolean | null }[] }
    ).numbers.filter((entry) => entry.phone_number === number);
  };

  it('lists a spoofable caller as unverified, a verified one (STIR/SHAKEN A) as verified', async () => {
    const cases = [
      { from: '+14155550301', stirVerstat: 'TN-Validation-Passed-A', verified: true },
      // B: the carrier signed, but does not vouch that the caller owns the number.
      { from: '+14155550302', stirVerstat: 'TN-Validation-Passed-B', verified: false },
      { from: '+14155550303', stirVerstat: 'TN-Validation-Failed-A', verified: false },
      { from: '+14155550304', stirVerstat: undefined, verified: false },
    ];
    for (const { from, stirVerstat, verified } of cases) {
      const run = await twilioCallFrom(from, stirVerstat);
      expect(run.callerIdVerified).toBe(verified);
      await listOptOut(services.db.dataSource, run.id);
      expect(await listed(from)).toEqual([
        expect.objectContaining({ phone_number: from, source: 'opt_out', caller_id_verified: verified }),
      ]);
    }
  });

  it('reads the verification of Plivo (STIRVerification) and Telnyx (shaken_stir_*) inbound webhooks', () => {
    const { providers } = createTelephonyServices(built.deps);
    const parse = (name: string, request: { contentType: string; body: string }) =>
      providers
        .find((provider) => provider.name === name)
        ?.inbound.parse({
          method: 'POST',
          url: inboundUrl(name),
          headers: { 'content-type': request.contentType },
          rawBody: request.body,
        });
    const plivo = (verification: string) =>
      parse('plivo', {
        contentType: 'application/x-www-form-urlencoded',
        body: form({ CallUUID: 'c', To: '14155551002', From: '14155550199', STIRVerification: verification }),
      })?.callerIdVerified;
    expect(plivo('Verified')).toBe(true);
    expect(plivo('Not Verified')).toBe(false);
    expect(plivo('Not Applicable')).toBe(false);
    const telnyx = (payload: Record<string, unknown>) =>
      parse('telnyx', {
        contentType: 'application/json',
        body: JSON.stringify({
          data: {
            event_type: 'call.initiated',
            payload: {
              call_control_id: 'v3:x',
              direction: 'incoming',
              from: '+14155550199',
              to: '+14155551005',
              ...payload,
            },
          },
        }),
      })?.callerIdVerified;
    expect(telnyx({ shaken_stir_attestation: 'A', shaken_stir_validated: true })).toBe(true);
    expect(telnyx({ shaken_stir_attestation: 'A', shaken_stir_validated: false })).toBe(false);
    expect(telnyx({ shaken_stir_attestation: 'B', shaken_stir_validated: true })).toBe(false);
    expect(telnyx({})).toBe(false);
  });
});
