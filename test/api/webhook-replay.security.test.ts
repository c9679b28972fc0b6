import { createHash, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import request from 'supertest';
import { Run } from '../../entities';
import { plivoV3Signature } from '../../telephony/providers/plivo-compatible/signature-v3';
import type { TestServer } from '../helpers/accounts';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { createPhoneNumber, createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';
import { terminateAll, uniqueTaskQueue } from '../helpers/temporal';

const services = useTestServices();
const BASE = 'https://sb.example.com';
const PLIVO_NUMBER = '+14155551102';
const VONAGE_NUMBER = '+14155551106';
const VONAGE_SECRET = 'qwertyuiopasdfghjklzxcvbnm123456';

/** Two API processes of one deployment: separate apps over the same database. */
let apiOne: TestServer;
let apiTwo: TestServer;
let org: CallingOrganization;
const started: string[] = [];

beforeAll(async () => {
  const build = () =>
    buildTestApp(
      { dataSource: services.db.dataSource, temporal: services.temporal.client },
      { TEMPORAL_TASK_QUEUE: uniqueTaskQueue('webhook-replay'), PUBLIC_BASE_URL: BASE, SECRETS_KEY: TEST_SECRETS_KEY },
    ).app.callback();
  apiOne = build();
  apiTwo = build();
  org = await callingOrganization(apiOne);
  for (const [config, address] of [
    [{ provider: 'plivo', auth_id: 'MAPLIVOREPLAY0000001', auth_token: 'plivo-token' }, PLIVO_NUMBER],
    [
      {
        provider: 'vonage',
        api_key: 'abcd1234',
        api_secret: 'secret',
        application_id: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
        private_key: 'not-used-here',
        signature_secret: VONAGE_SECRET,
      },
      VONAGE_NUMBER,
    ],
  ] as const) {
    const configuration = await createTelephonyConfig(apiOne, org.owner.token, config);
    const number = await createPhoneNumber(apiOne, org.owner.token, configuration.id, { address });
    await services.db.dataSource.query('UPDATE phone_numbers SET inbound_workflow_id = $1 WHERE id = $2', [
      org.agent.id,
      number.id,
    ]);
  }
});

afterAll(async () => {
  await terminateAll(services.temporal.client, started);
});

const runsOf = (mode: string, callId: string) =>
  services.db.dataSource.getRepository(Run).findBy({ provider: mode, providerCallId: callId });

function plivoCall(callId: string, nonce: string) {
  const fields = { CallUUID: callId, To: PLIVO_NUMBER.slice(1), From: '14155550199', Direction: 'inbound' };
  const url = `${BASE}/api/v1/telephony/plivo/inbound`;
  return {
    body: new URLSearchParams(fields).toString(),
    headers: {
      'x-plivo-signature-v3': plivoV3Signature('plivo-token', 'POST', url, Object.entries(fields), nonce),
      'x-plivo-signature-v3-nonce': nonce,
    },
  };
}

const postPlivo = (api: TestServer, signed: ReturnType<typeof plivoCall>) =>
  request(api)
    .post('/api/v1/telephony/plivo/inbound')
    .set('content-type', 'application/x-www-form-urlencoded')
    .set(signed.headers)
    .send(signed.body);

describe('a Plivo webhook replayed to another API process', () => {
  it('is refused: its nonce is remembered in PostgreSQL, not in one process', async () => {
    const callId = `plivo-${randomUUID()}`;
    const signed = plivoCall(callId, String(Date.now()) + String(Math.random()).slice(2, 8));
    expect((await postPlivo(apiOne, signed)).status).toBe(200);
    const runs = await runsOf('plivo', callId);
    expect(runs).toHaveLength(1);
    started.push(`call-${runs[0]?.id}`);

    expect((await postPlivo(apiTwo, signed)).status).toBe(403);
    expect((await postPlivo(apiOne, signed)).status).toBe(403);
    expect(await runsOf('plivo', callId)).toHaveLength(1);
  });

  it('is refused when only the database knows the nonce (another process claimed it)', async () => {
    const nonce = `other-process-${randomUUID()}`;
    await services.db.dataSource.query(
      `INSERT INTO webhook_nonces (nonce, expires_at) VALUES ($1, now() + interval '10 minutes')`,
      [`plivo:MAPLIVOREPLAY0000001:${nonce}`],
    );
    const callId = `plivo-${randomUUID()}`;
    expect((await postPlivo(apiTwo, plivoCall(callId, nonce))).status).toBe(403);
    expect(await runsOf('plivo', callId)).toHaveLength(0);
  });
});

describe('a Vonage webhook whose token does not bind its body', () => {
  const vonageCall = async (callId: string, withHash: boolean) => {
    const body = JSON.stringify({ to: VONAGE_NUMBER.slice(1), from: '14155550199', uuid: callId });
    const claims = withHash ? { payload_hash: createHash('sha256').update(body).digest('hex') } : {};
    const token = await new SignJWT({ ...claims, api_key: 'abcd1234' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .setJti(randomUUID())
      .sign(new TextEncoder().encode(VONAGE_SECRET));
    return request(apiOne)
      .post('/api/v1/telephony/vonage/inbound')
      .set('content-type', 'application/json')
      .set('authorization', `Bearer ${token}`)
      .send(body);
  };

  it('is refused without payload_hash (the token could be lifted onto any body)', async () => {
    const callId = `vonage-${randomUUID()}`;
    expect((await vonageCall(callId, false)).status).toBe(403);
    expect(await runsOf('vonage', callId)).toHaveLength(0);
  });

  it('is accepted with payload_hash', async () => {
    const callId = `vonage-${randomUUID()}`;
    expect((await vonageCall(callId, true)).status).toBe(200);
    const runs = await runsOf('vonage', callId);
    expect(runs).toHaveLength(1);
    started.push(`call-${runs[0]?.id}`);
  });
});
