import { generateKeyPairSync, sign } from 'node:crypto';
import type { Client } from '@temporalio/client';
import request from 'supertest';
import type { TestServer } from '../helpers/accounts';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';
import { FakeProviderServer } from '../telephony/helpers/fake-provider-server';

const services = useTestServices();
const BASE = 'https://sb.example.com';
const CONNECTION = '1293384261075731499';
const CALLER = 'v3:caller-a-0123456789';
const LEG = 'v3:leg-b-0123456789';
const TRANSFER = 'tr0123456789abcdef01234567';

const telnyxKeys = generateKeyPairSync('ed25519');
const publicKey = telnyxKeys.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');

// The route's own logic: Temporal is a stub that records signals; Telnyx is a local server.
const signal = jest.fn((..._args: unknown[]) => Promise.resolve());
const getHandle = jest.fn((workflowId: string) => ({ workflowId, signal }));
const temporal = { workflow: { start: jest.fn(), getHandle } } as unknown as Client;

let fake: FakeProviderServer;
let app: TestServer;
let org: CallingOrganization;
let configurationId: number;

beforeAll(async () => {
  fake = await FakeProviderServer.start();
  app = services.server(
    { SECRETS_KEY: TEST_SECRETS_KEY, PUBLIC_BASE_URL: BASE, TELEPHONY_API_BASE_URL: fake.url },
    temporal,
  );
  org = await callingOrganization(app);
  const configuration = await createTelephonyConfig(app, org.owner.token, {
    provider: 'telnyx',
    api_key: 'KEY_test',
    connection_id: CONNECTION,
    webhook_public_key: publicKey,
  });
  configurationId = configuration.id;
});
afterAll(() => fake.close());
beforeEach(() => {
  signal.mockClear();
  fake.reset();
});

/** A run whose Telnyx call (the caller) is up. */
const telnyxRun = async (): Promise<number> => {
  const res = await request(app)
    .post(`/api/v1/public/agent/${org.triggerPath}`)
    .set('X-API-Key', org.apiKey)
    .send({ phone_number: '+14155550123' });
  const runId = res.body.workflow_run_id as number;
  await services.db.dataSource.query(
    `UPDATE runs SET mode = 'telnyx', telephony_configuration_id = $2, provider_call_id = $3 WHERE id = $1`,
    [runId, configurationId, CALLER],
  );
  return runId;
};

const legState = (step: string, announcement?: string) =>
  Buffer.from(JSON.stringify({ transfer: TRANSFER, step, ...(announcement ? { announcement } : {}) })).toString(
    'base64',
  );

/** The dialed leg's event, signed as Telnyx signs it. */
const postLegEvent = (runId: number, eventType: string, clientState: string) => {
  const body = JSON.stringify({
    data: {
      record_type: 'event',
      event_type: eventType,
      id: '0ccc7b54-4df3-4bca-a65a-3da1ecc777f0',
      occurred_at: new Date().toISOString(),
      payload: { call_control_id: LEG, connection_id: CONNECTION, client_state: clientState, status: 'completed' },
    },
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  return request(app)
    .post(`/api/v1/telephony/telnyx/transfer/${runId}`)
    .set('content-type', 'application/json')
    .set({
      'telnyx-timestamp': timestamp,
      'telnyx-signature-ed25519': sign(null, Buffer.from(`${timestamp}|${body}`), telnyxKeys.privateKey).toString(
        'base64',
      ),
    })
    .send(body);
};

describe("POST /telephony/telnyx/transfer/{run_id}: a warm transfer's leg", () => {
  const OK = { status: 200, body: { data: { result: 'ok' } } };
  const transferId = `${TRANSFER}.${LEG}`;

  it('answered: the announcement is spoken to the person and the caller still waits', async () => {
    const runId = await telnyxRun();
    fake.answer(OK);

    const res = await postLegEvent(runId, 'call.answered', legState('dialed', 'About an invoice.'));

    expect(res.status).toBe(200);
    expect(fake.requests.map((sent) => sent.path)).toEqual([`/v2/calls/${encodeURIComponent(LEG)}/actions/speak`]);
    expect(JSON.parse(fake.requests[0]!.body)).toMatchObject({ payload: 'About an invoice.' });
    expect(signal).toHaveBeenCalledWith(expect.objectContaining({ name: 'transferStatus' }), {
      status: 'ringing',
      transferId,
    });
  });

  it("announcement ended: the person is bridged with the run's caller and the workflow hears the transfer answered", async () => {
    const runId = await telnyxRun();
    fake.answer(OK, OK, OK);

    const res = await postLegEvent(runId, 'call.speak.ended', legState('answered'));

    expect(res.status).toBe(200);
    expect(fake.requests.map((sent) => sent.path)).toEqual([
      `/v2/calls/${encodeURIComponent(LEG)}/actions/bridge`,
      `/v2/calls/${encodeURIComponent(CALLER)}/actions/playback_stop`,
      `/v2/calls/${encodeURIComponent(CALLER)}/actions/streaming_stop`,
    ]);
    expect(JSON.parse(fake.requests[0]!.body)).toMatchObject({ call_control_id: CALLER });
    expect(signal).toHaveBeenCalledWith(expect.objectContaining({ name: 'transferStatus' }), {
      status: 'answered',
      transferId,
    });
  });

  it('answers 502 when Telnyx fails the bridge, signalling nothing', async () => {
    const runId = await telnyxRun();
    fake.answer({ status: 500, body: { errors: [{ title: 'Internal error' }] } });

    const res = await postLegEvent(runId, 'call.speak.ended', legState('answered'));

    expect(res.status).toBe(502);
    expect(signal).not.toHaveBeenCalled();
  });
});
