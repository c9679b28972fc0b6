import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import request from 'supertest';
import type { TestServer } from '../helpers/accounts';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { simulatorSignature } from '../../telephony/providers/simulator/webhook';
import { Secrets } from '../../telephony/secrets';

const services = useTestServices();
const signingKey = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex')).deriveKey('simulator-webhooks');

// The route's own logic: Temporal is a stub that records starts and signals.
const signal = jest.fn((..._args: unknown[]) => Promise.resolve());
const getHandle = jest.fn((workflowId: string) => ({ workflowId, signal }));
const start = jest.fn(() => Promise.resolve({}));
const temporal = { workflow: { start, getHandle } } as unknown as Client;

let app: TestServer;
let org: CallingOrganization;

beforeAll(async () => {
  app = services.server({ SECRETS_KEY: TEST_SECRETS_KEY }, temporal);
  org = await callingOrganization(app);
});
beforeEach(() => {
  signal.mockClear();
  getHandle.mockClear();
});

const newRun = async (): Promise<number> => {
  const res = await request(app)
    .post(`/api/v1/public/agent/${org.triggerPath}`)
    .set('X-API-Key', org.apiKey)
    .send({ phone_number: '+14155550123' });
  return res.body.workflow_run_id as number;
};

const post = (runId: number, payload: object, signature?: string, provider = 'simulator') => {
  const body = JSON.stringify(payload);
  const req = request(app)
    .post(`/api/v1/telephony/${provider}/status/${runId}`)
    .set('content-type', 'application/json');
  return req.set('x-simulator-signature', signature ?? simulatorSignature(signingKey, body)).send(body);
};

const answered = { call_id: 'SIM1', status: 'answered', duration: 0 };

describe('POST /telephony/{provider}/status/{run_id}', () => {
  it('signals the call workflow with the normalized status', async () => {
    const runId = await newRun();
    const res = await post(runId, { call_id: 'SIM1', status: 'completed', duration: 7 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'received' });
    expect(getHandle).toHaveBeenCalledWith(`call-${runId}`);
    expect(signal).toHaveBeenCalledWith(expect.objectContaining({ name: 'callStatus' }), {
      status: 'completed',
      providerCallId: 'SIM1',
      durationSeconds: 7,
    });
  });

  it('signals the workflow id stored on the run (campaign calls)', async () => {
    const runId = await newRun();
    await services.db.dataSource.query(`UPDATE runs SET temporal_workflow_id = 'campaign-9/row-3' WHERE id = $1`, [
      runId,
    ]);
    expect((await post(runId, answered)).status).toBe(200);
    expect(getHandle).toHaveBeenCalledWith('campaign-9/row-3');
  });

  it('answers 403 to a bad or missing signature and signals nothing', async () => {
    const runId = await newRun();
    const bad = await post(runId, answered, 'f'.repeat(64));
    expect(bad.status).toBe(403);
    expect(bad.body).toEqual({ detail: 'Invalid signature' });
    const missing = await request(app)
      .post(`/api/v1/telephony/simulator/status/${runId}`)
      .set('content-type', 'application/json')
      .send(JSON.stringify(answered));
    expect(missing.status).toBe(403);
    // Signed, then altered: the signature covers the raw body.
    const altered = await post(
      runId,
      { ...answered, status: 'busy' },
      simulatorSignature(signingKey, JSON.stringify(answered)),
    );
    expect(altered.status).toBe(403);
    expect(signal).not.toHaveBeenCalled();
  });

  it('answers 200 to an unknown run, or a provider the run does not use, and signals nothing', async () => {
    expect((await post(987_654_321, answered)).status).toBe(200);
    const runId = await newRun();
    expect((await post(runId, answered, undefined, 'twilio')).status).toBe(200);
    expect(signal).not.toHaveBeenCalled();
  });

  it('answers 200 to an event for a finished run and signals nothing', async () => {
    const runId = await newRun();
    await services.db.dataSource.query(`UPDATE runs SET is_completed = true, state = 'completed' WHERE id = $1`, [
      runId,
    ]);
    expect((await post(runId, answered)).status).toBe(200);
    expect(signal).not.toHaveBeenCalled();
  });

  it('answers 200 when the call workflow has already closed', async () => {
    const runId = await newRun();
    signal.mockRejectedValueOnce(new WorkflowNotFoundError('closed', `call-${runId}`, undefined));
    expect((await post(runId, answered)).status).toBe(200);
  });

  it('answers 400 to a signed payload that is not a status event', async () => {
    const runId = await newRun();
    const res = await post(runId, { hello: 'world' });
    expect(res.status).toBe(400);
    expect(signal).not.toHaveBeenCalled();
  });
});
