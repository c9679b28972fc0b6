import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { Run } from '../../entities';
import { plivoV3Signature } from '../../telephony/providers/plivo-compatible/signature-v3';
import type { TestServer } from '../helpers/accounts';
import { buildTestApp } from '../helpers/app';
import { callingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { createPhoneNumber, createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';
import { terminateAll, uniqueTaskQueue } from '../helpers/temporal';

/**
 * Plivo fetches a transfer's XML from the transfer callback: the route answers the adapter's
 * markup after checking the signature, and still signals the event to the call workflow.
 */
const services = useTestServices();
const BASE = 'https://sb.example.com';
const NUMBER = '+14155551177';
const AUTH_ID = 'MAPLIVOTRANSFER00001';
const TOKEN = 'plivo-transfer-token';

let api: TestServer;
let runId: number;
const started: string[] = [];
let nonceCounter = 0;
const nonce = () => `${Date.now()}${String(++nonceCounter).padStart(7, '0')}`;

/** A POST signed as Plivo signs it (V3: the URL with its query, the sorted form, the nonce). */
function signedPost(path: string, fields: Record<string, string>) {
  const once = nonce();
  return request(api)
    .post(path)
    .set('content-type', 'application/x-www-form-urlencoded')
    .set('x-plivo-signature-v3', plivoV3Signature(TOKEN, 'POST', `${BASE}${path}`, Object.entries(fields), once))
    .set('x-plivo-signature-v3-nonce', once)
    .send(new URLSearchParams(fields).toString());
}

beforeAll(async () => {
  api = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: uniqueTaskQueue('transfer-markup'), PUBLIC_BASE_URL: BASE, SECRETS_KEY: TEST_SECRETS_KEY },
  ).app.callback();
  const org = await callingOrganization(api);
  const configuration = await createTelephonyConfig(api, org.owner.token, {
    provider: 'plivo',
    auth_id: AUTH_ID,
    auth_token: TOKEN,
  });
  const number = await createPhoneNumber(api, org.owner.token, configuration.id, { address: NUMBER });
  await services.db.dataSource.query('UPDATE phone_numbers SET inbound_workflow_id = $1 WHERE id = $2', [
    org.agent.id,
    number.id,
  ]);
  // An inbound call gives a run on this configuration, its workflow started.
  const callId = `plivo-${randomUUID()}`;
  const inbound = await signedPost('/api/v1/telephony/plivo/inbound', {
    CallUUID: callId,
    To: NUMBER.slice(1),
    From: '14155550199',
    Direction: 'inbound',
  });
  expect(inbound.status).toBe(200);
  const run = await services.db.dataSource
    .getRepository(Run)
    .findOneByOrFail({ provider: 'plivo', providerCallId: callId });
  runId = run.id;
  started.push(`call-${runId}`);
});

afterAll(async () => {
  await terminateAll(services.temporal.client, started);
});

const transferPath = (query: Record<string, string>) =>
  `/api/v1/telephony/plivo/transfer/${runId}?${new URLSearchParams(query).toString()}`;

describe('the Plivo transfer callback', () => {
  it('answers the dial fetch with the <Dial> XML', async () => {
    const res = await signedPost(
      transferPath({ transfer: 'abc.def', step: 'dial', to: '+14155550999', timeout: '20', hold: `${BASE}/hold.wav` }),
      { CallUUID: 'a-leg', Event: 'Redirect' },
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/xml/);
    expect(res.text).toContain('<Dial timeout="20" action=');
    expect(res.text).toContain('<Number>+14155550999</Number>');
  });

  it("answers a dial that did not connect with the stream back to the run's media endpoint", async () => {
    const res = await signedPost(transferPath({ transfer: 'abc.def', step: 'result' }), {
      DialStatus: 'no-answer',
      DialALegUUID: 'a-leg',
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain(`wss://sb.example.com/api/v1/telephony/plivo/media/${runId}?token=`);
  });

  it('acknowledges a dial event with JSON', async () => {
    const res = await signedPost(transferPath({ transfer: 'abc.def', step: 'events' }), {
      DialAction: 'answer',
      DialALegUUID: 'a-leg',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'received' });
  });

  it('refuses an unsigned fetch (403) and a request that is no transfer step (400)', async () => {
    const unsigned = await request(api)
      .post(transferPath({ transfer: 'abc.def', step: 'dial', to: '+14155550999' }))
      .set('content-type', 'application/x-www-form-urlencoded')
      .send('CallUUID=a-leg');
    expect(unsigned.status).toBe(403);
    const stray = await signedPost(transferPath({ transfer: 'abc.def', step: 'other' }), { CallUUID: 'a-leg' });
    expect(stray.status).toBe(400);
  });
});
