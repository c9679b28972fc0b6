import type { Client } from '@temporalio/client';
import request from 'supertest';
import type { TestServer } from '../helpers/accounts';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';
import { twilioSignature } from '../../telephony/providers/twilio/signature';

const services = useTestServices();
const BASE = 'https://sb.example.com';
const TOKEN = 'twilio-token';

// The route's own logic: Temporal is a stub that records signals.
const signal = jest.fn((..._args: unknown[]) => Promise.resolve());
const getHandle = jest.fn((workflowId: string) => ({ workflowId, signal }));
const temporal = { workflow: { start: jest.fn(), getHandle } } as unknown as Client;

let app: TestServer;
let org: CallingOrganization;
let twilioConfigurationId: number;

beforeAll(async () => {
  app = services.server({ SECRETS_KEY: TEST_SECRETS_KEY, PUBLIC_BASE_URL: BASE }, temporal);
  org = await callingOrganization(app);
  const configuration = await createTelephonyConfig(app, org.owner.token, {
    provider: 'twilio',
    account_sid: 'AC0123456789abcdef0123456789abcdef',
    auth_token: TOKEN,
  });
  twilioConfigurationId = configuration.id;
});
beforeEach(() => signal.mockClear());

/** A run placed through the organization's Twilio configuration. */
const twilioRun = async (): Promise<number> => {
  const res = await request(app)
    .post(`/api/v1/public/agent/${org.triggerPath}`)
    .set('X-API-Key', org.apiKey)
    .send({ phone_number: '+14155550123' });
  const runId = res.body.workflow_run_id as number;
  await services.db.dataSource.query(`UPDATE runs SET mode = 'twilio', telephony_configuration_id = $2 WHERE id = $1`, [
    runId,
    twilioConfigurationId,
  ]);
  return runId;
};

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
