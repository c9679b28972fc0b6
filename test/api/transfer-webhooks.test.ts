import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { SignJWT } from 'jose';
import request from 'supertest';
import type { TestServer } from '../helpers/accounts';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';
import { twilioSignature } from '../../telephony/providers/twilio/signature';

const services = useTestServices();
const BASE = 'https://sb.example.com';
const TOKEN = 'twilio-token';
const VONAGE_SECRET = 'qwertyuiopasdfghjklzxcvbnm123456';

// The route's own logic: Temporal is a stub that records signals.
const signal = jest.fn((..._args: unknown[]) => Promise.resolve());
const getHandle = jest.fn((workflowId: string) => ({ workflowId, signal }));
const temporal = { workflow: { start: jest.fn(), getHandle } } as unknown as Client;

let app: TestServer;
let org: CallingOrganization;
let twilioConfigurationId: number;
let vonageConfigurationId: number;

beforeAll(async () => {
  app = services.server({ SECRETS_KEY: TEST_SECRETS_KEY, PUBLIC_BASE_URL: BASE }, temporal);
  org = await callingOrganization(app);
  const configuration = await createTelephonyConfig(app, org.owner.token, {
    provider: 'twilio',
    account_sid: 'AC0123456789abcdef0123456789abcdef',
    auth_token: TOKEN,
  });
  twilioConfigurationId = configuration.id;
  const vonage = await createTelephonyConfig(app, org.owner.token, {
    provider: 'vonage',
    api_key: 'abcd1234',
    api_secret: 'api-secret-value',
    application_id: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
    private_key: generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString(),
    signature_secret: VONAGE_SECRET,
  });
  vonageConfigurationId = vonage.id;
});
beforeEach(() => signal.mockClear());

/** A run placed through one of the organization's configurations. */
const runThrough = async (provider: string, configurationId: number): Promise<number> => {
  const res = await request(app)
    .post(`/api/v1/public/agent/${org.triggerPath}`)
    .set('X-API-Key', org.apiKey)
    .send({ phone_number: '+14155550123' });
  const runId = res.body.workflow_run_id as number;
  await services.db.dataSource.query(`UPDATE runs SET mode = $3, telephony_configuration_id = $2 WHERE id = $1`, [
    runId,
    configurationId,
    provider,
  ]);
  return runId;
};
const twilioRun = () => runThrough('twilio', twilioConfigurationId);

describe('POST /telephony/twilio/transfer/{run_id}', () => {
  const transferId = 'tr0123456789abcdef01234567.1772446500';
  const fields = {
    AccountSid: 'AC0123456789abcdef0123456789abcdef',
    CallSid: 'CAbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    ParentCallSid: 'CAaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    CallStatus: 'busy',
    Direction: 'outbound-dial',
  };
  const post = (runId: number, signedPath: string, path = signedPath) =>
    request(app)
      .post(path)
      .set('content-type', 'application/x-www-form-urlencoded')
      .set('x-twilio-signature', twilioSignature(TOKEN, `${BASE}${signedPath}`, Object.entries(fields)))
      .send(new URLSearchParams(fields).toString());

  it("signals the dialed leg's status with the transfer its signed callback URL names", async () => {
    const runId = await twilioRun();
    const path = `/api/v1/telephony/twilio/transfer/${runId}?transfer_id=${transferId}`;

    const res = await post(runId, path);

    expect(res.status).toBe(200);
    expect(signal).toHaveBeenCalledWith(expect.objectContaining({ name: 'transferStatus' }), {
      status: 'busy',
      transferId,
    });
  });

  it("signals a warm transfer's destination leg under the id its start returned, the leg's sid added", async () => {
    const runId = await twilioRun();
    const answerUrl = Buffer.from(`${BASE}/api/v1/telephony/twilio/answer/${runId}`).toString('base64url');
    const path = `/api/v1/telephony/twilio/transfer/${runId}?transfer_id=${transferId}.${answerUrl}`;

    const res = await post(runId, path);

    expect(res.status).toBe(200);
    expect(signal).toHaveBeenCalledWith(expect.objectContaining({ name: 'transferStatus' }), {
      status: 'busy',
      transferId: `${transferId}.${answerUrl}.${fields.CallSid}`,
    });
  });

  it('answers 403 when the transfer id was changed after Twilio signed the URL', async () => {
    const runId = await twilioRun();
    const signed = `/api/v1/telephony/twilio/transfer/${runId}?transfer_id=${transferId}`;

    const res = await post(runId, signed, `/api/v1/telephony/twilio/transfer/${runId}?transfer_id=tr-other.1772446500`);

    expect(res.status).toBe(403);
    expect(signal).not.toHaveBeenCalled();
  });
});

describe('POST /telephony/vonage/transfer/{run_id}', () => {
  const legUuid = 'aaaaaaaa-0000-4000-8000-0000000000b1';
  /** An event of a warm transfer's destination call, signed as Vonage signs it (HS256, the body's hash). */
  const post = async (runId: number, callbackId: string, status: string) => {
    const body = JSON.stringify({
      from: '447700900000',
      to: '447700900999',
      uuid: legUuid,
      conversation_uuid: 'CON-aaaaaaaa-0000-4000-8000-000000000001',
      status,
      direction: 'outbound',
      timestamp: new Date().toISOString(),
    });
    const token = await new SignJWT({
      api_key: 'abcd1234',
      application_id: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
      payload_hash: createHash('sha256').update(body).digest('hex'),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .setJti(randomUUID())
      .sign(new TextEncoder().encode(VONAGE_SECRET));
    return request(app)
      .post(`/api/v1/telephony/vonage/transfer/${runId}?transfer_id=${callbackId}`)
      .set('content-type', 'application/json')
      .set('authorization', `Bearer ${token}`)
      .send(body);
  };

  it.each([
    ['answered', 'answered'],
    ['busy', 'busy'],
    ['timeout', 'no-answer'],
  ])(
    "signals a warm transfer's destination %s event as %s under the id its start returned",
    async (status, expected) => {
      const runId = await runThrough('vonage', vonageConfigurationId);
      const media = Buffer.from(`wss://sb.example.com/api/v1/telephony/vonage/media/${runId}?token=t`).toString(
        'base64url',
      );
      const callbackId = `tr0123456789abcdef01234567.1772446500.${runId}.${media}`;

      const res = await post(runId, callbackId, status);

      expect(res.status).toBe(200);
      expect(signal).toHaveBeenCalledWith(expect.objectContaining({ name: 'transferStatus' }), {
        status: expected,
        transferId: `${callbackId}.${legUuid}`,
      });
    },
  );
});
