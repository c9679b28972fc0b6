import type { Client } from '@temporalio/client';
import request from 'supertest';
import { requestHash } from '../../domain/calls/idempotency';
import type { TestServer } from '../helpers/accounts';
import { createApiKey, signUp } from '../helpers/accounts';
import { createAgent } from '../helpers/agents';
import { callingOrganization, definitionWithTrigger, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { createPhoneNumber, createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();

interface StartOptions {
  workflowId: string;
  taskQueue: string;
  args: [{ runId: number; attempt: number; maxDurationSeconds: number }];
  memo: Record<string, unknown>;
  typedSearchAttributes: { key: { name: string }; value: unknown }[];
}

// These tests check the routes' own logic: Temporal is a stub that records the starts.
const start = jest.fn((_workflow: unknown, options: StartOptions) =>
  Promise.resolve({ workflowId: options.workflowId }),
);
const temporal = { workflow: { start } } as unknown as Client;

let app: TestServer;
let org: CallingOrganization;

beforeAll(async () => {
  app = services.server({ SECRETS_KEY: TEST_SECRETS_KEY, TEMPORAL_TASK_QUEUE: 'calls-queue' }, temporal);
  org = await callingOrganization(app);
});
beforeEach(() => start.mockClear());

const callByTrigger = (path: string, body: object, apiKey = org.apiKey) =>
  request(app).post(`/api/v1/public/agent/${path}`).set('X-API-Key', apiKey).send(body);
const callByUuid = (uuid: string, body: object, apiKey = org.apiKey) =>
  request(app).post(`/api/v1/public/agent/workflow/${uuid}`).set('X-API-Key', apiKey).send(body);

const runRow = async (id: number) => {
  const [row] = await services.db.dataSource.query<Record<string, unknown>[]>(
    `SELECT name, mode, call_type, telephony_configuration_id, caller_number, called_number, initial_context,
            definition_id, temporal_workflow_id, state FROM runs WHERE id = $1`,
    [id],
  );
  return row;
};

describe('POST /public/agent/{trigger_path}', () => {
  it('creates the run and starts its call workflow', async () => {
    const res = await callByTrigger(org.triggerPath, {
      phone_number: '+14155550123',
      initial_context: { first_name: 'Ada' },
    });
    expect(res.status).toBe(200);
    const runId = res.body.workflow_run_id as number;
    expect(res.body).toEqual({ status: 'initiated', workflow_run_id: runId, workflow_run_name: `call-${runId}` });
    expect(await runRow(runId)).toMatchObject({
      name: `call-${runId}`,
      mode: 'simulator',
      call_type: 'outbound',
      telephony_configuration_id: org.configuration.id,
      caller_number: '+14155550100',
      called_number: '+14155550123',
      definition_id: org.agent.current_definition_id,
      temporal_workflow_id: `call-${runId}`,
      state: 'initialized',
      initial_context: {
        first_name: 'Ada',
        called_number: '+14155550123',
        caller_number: '+14155550100',
        direction: 'outbound',
        provider: 'simulator',
      },
    });
    expect(start).toHaveBeenCalledTimes(1);
    const options = start.mock.calls[0]?.[1];
    expect(options).toMatchObject({
      workflowId: `call-${runId}`,
      taskQueue: 'calls-queue',
      args: [{ runId, attempt: 1, maxDurationSeconds: 300 }],
      memo: { run_id: runId },
    });
    expect(options?.typedSearchAttributes.map(({ key, value }) => [key.name, value])).toEqual([
      ['AgentId', org.agent.id],
      ['OrganizationId', org.owner.user.organization_id],
    ]);
  });

  it('answers 404 for an Agent UUID', async () => {
    const res = await callByTrigger(org.agent.workflow_uuid, { phone_number: '+14155550123' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Agent trigger not found' });
    expect(start).not.toHaveBeenCalled();
  });

  it("answers 404 for another organization's trigger", async () => {
    const other = await callingOrganization(app);
    const res = await callByTrigger(org.triggerPath, { phone_number: '+14155550123' }, other.apiKey);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Agent trigger not found' });
  });

  it('accepts only API keys', async () => {
    const res = await request(app)
      .post(`/api/v1/public/agent/${org.triggerPath}`)
      .auth(org.owner.token, { type: 'bearer' })
      .send({ phone_number: '+14155550123' });
    expect(res.status).toBe(401);
  });

  it('answers 422 for a number that is not E.164', async () => {
    const res = await callByTrigger(org.triggerPath, { phone_number: '4155550123' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'phone_number'] });
  });
});

describe('POST /public/agent/workflow/{workflow_uuid}', () => {
  it('starts a call by Agent UUID', async () => {
    const res = await callByUuid(org.agent.workflow_uuid, { phone_number: '+14155550124' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('initiated');
    expect(start).toHaveBeenCalledTimes(1);
  });

  it('answers 404 for a trigger path', async () => {
    const res = await callByUuid(org.triggerPath, { phone_number: '+14155550123' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Workflow not found' });
  });

  it('answers 409 for an archived agent', async () => {
    const archived = await callingOrganization(app);
    const status = await request(app)
      .put(`/api/v1/workflow/${archived.agent.id}/status`)
      .auth(archived.owner.token, { type: 'bearer' })
      .send({ status: 'archived' });
    expect(status.status).toBe(200);
    const res = await callByUuid(archived.agent.workflow_uuid, { phone_number: '+14155550123' }, archived.apiKey);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: 'Agent is archived' });
    expect(start).not.toHaveBeenCalled();
  });
});

describe('telephony routing', () => {
  it('answers 400 when the organization has no telephony configuration', async () => {
    const bare = await signUp(app);
    const { api_key } = await createApiKey(app, bare.token);
    const agent = await createAgent(app, bare.token, definitionWithTrigger());
    const res = await callByUuid(agent.workflow_uuid, { phone_number: '+14155550123' }, api_key);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Telephony provider not configured for this organization' });
  });

  it('routes through an explicit configuration and its default caller id', async () => {
    const second = await createTelephonyConfig(app, org.owner.token);
    await createPhoneNumber(app, org.owner.token, second.id, { address: '+14155550200' });
    const preferred = await createPhoneNumber(app, org.owner.token, second.id, { address: '+14155550201' });
    const made = await request(app)
      .post(`/api/v1/organizations/telephony-configs/${second.id}/phone-numbers/${preferred.id}/set-default-caller`)
      .auth(org.owner.token, { type: 'bearer' });
    expect(made.status).toBe(200);

    const res = await callByTrigger(org.triggerPath, {
      phone_number: '+14155550125',
      telephony_configuration_id: second.id,
    });
    expect(res.status).toBe(200);
    expect(await runRow(res.body.workflow_run_id as number)).toMatchObject({
      telephony_configuration_id: second.id,
      caller_number: '+14155550201',
    });
  });

  it('uses an explicit caller id of the configuration', async () => {
    const extra = await createPhoneNumber(app, org.owner.token, org.configuration.id, { address: '+14155550300' });
    const res = await callByTrigger(org.triggerPath, { phone_number: '+14155550126', from_phone_number_id: extra.id });
    expect(res.status).toBe(200);
    expect(await runRow(res.body.workflow_run_id as number)).toMatchObject({ caller_number: '+14155550300' });
  });

  it('answers 404 for a configuration of another organization', async () => {
    const other = await callingOrganization(app);
    const res = await callByTrigger(org.triggerPath, {
      phone_number: '+14155550127',
      telephony_configuration_id: other.configuration.id,
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Telephony configuration not found' });
  });
});

describe('Idempotency-Key', () => {
  it('answers a repeat with the first response and places no second call', async () => {
    const body = { phone_number: '+14155550130', initial_context: { b: 1, a: 2 } };
    const first = await callByTrigger(org.triggerPath, body).set('Idempotency-Key', 'key-1');
    // Same body, keys in another order.
    const again = await callByTrigger(org.triggerPath, {
      initial_context: { a: 2, b: 1 },
      phone_number: '+14155550130',
    }).set('Idempotency-Key', 'key-1');
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(start).toHaveBeenCalledTimes(1);
  });

  it('answers 422 for the same key with another body', async () => {
    const first = await callByTrigger(org.triggerPath, { phone_number: '+14155550131' }).set(
      'Idempotency-Key',
      'key-2',
    );
    expect(first.status).toBe(200);
    const other = await callByTrigger(org.triggerPath, { phone_number: '+14155550132' }).set(
      'Idempotency-Key',
      'key-2',
    );
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      detail: [
        {
          loc: ['header', 'Idempotency-Key'],
          msg: 'Idempotency-Key was already used with a different request',
          type: 'value_error',
        },
      ],
    });
    expect(start).toHaveBeenCalledTimes(1);
  });

  it('releases the key when the first request fails', async () => {
    const failed = await callByUuid(org.triggerPath, { phone_number: '+14155550133' }).set('Idempotency-Key', 'key-3');
    expect(failed.status).toBe(404);
    const retried = await callByTrigger(org.triggerPath, { phone_number: '+14155550133' }).set(
      'Idempotency-Key',
      'key-3',
    );
    expect(retried.status).toBe(200);
  });

  it('answers 409 while the first request with the key is in flight', async () => {
    await services.db.dataSource.query(
      `INSERT INTO call_idempotency_keys (organization_id, key, request_hash) VALUES ($1, 'key-4', $2)`,
      [org.owner.user.organization_id, requestHash(`trigger:${org.triggerPath}`, { phone_number: '+14155550135' })],
    );
    const res = await callByTrigger(org.triggerPath, { phone_number: '+14155550135' }).set('Idempotency-Key', 'key-4');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: 'A request with this Idempotency-Key is still in progress' });
  });

  it('forgets a key after 24 hours', async () => {
    const first = await callByTrigger(org.triggerPath, { phone_number: '+14155550136' }).set(
      'Idempotency-Key',
      'key-5',
    );
    await services.db.dataSource.query(
      `UPDATE call_idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'key-5'`,
    );
    const later = await callByTrigger(org.triggerPath, { phone_number: '+14155550137' }).set(
      'Idempotency-Key',
      'key-5',
    );
    expect(later.status).toBe(200);
    expect(later.body.workflow_run_id).not.toBe(first.body.workflow_run_id);
    expect(start).toHaveBeenCalledTimes(2);
  });

  it('keeps keys per organization', async () => {
    const other = await callingOrganization(app);
    const mine = await callByTrigger(org.triggerPath, { phone_number: '+14155550134' }).set(
      'Idempotency-Key',
      'shared',
    );
    const theirs = await callByTrigger(other.triggerPath, { phone_number: '+14155550134' }, other.apiKey).set(
      'Idempotency-Key',
      'shared',
    );
    expect(mine.status).toBe(200);
    expect(theirs.status).toBe(200);
    expect(theirs.body.workflow_run_id).not.toBe(mine.body.workflow_run_id);
  });
});

describe('GET /workflow/{workflow_id}/runs/{run_id}/transcript', () => {
  it('serves the stored transcript as text lines', async () => {
    const res = await callByTrigger(org.triggerPath, { phone_number: '+14155550140' });
    const runId = res.body.workflow_run_id as number;
    await services.db.dataSource.query(`UPDATE runs SET logs = $2 WHERE id = $1`, [
      runId,
      JSON.stringify({
        transcript: [
          { at: '2026-01-01T10:00:00.000Z', role: 'assistant', text: 'Hello Ada.' },
          { at: '2026-01-01T10:00:02.000Z', role: 'user', text: 'Hi.' },
        ],
      }),
    ]);
    const transcript = await request(app)
      .get(`/api/v1/workflow/${org.agent.id}/runs/${runId}/transcript`)
      .auth(org.owner.token, { type: 'bearer' });
    expect(transcript.status).toBe(200);
    expect(transcript.type).toBe('text/plain');
    expect(transcript.text).toBe(
      '[2026-01-01T10:00:00.000Z] assistant: Hello Ada.\n[2026-01-01T10:00:02.000Z] user: Hi.\n',
    );
    const wrongAgent = await request(app)
      .get(`/api/v1/workflow/${org.agent.id + 1000}/runs/${runId}/transcript`)
      .auth(org.owner.token, { type: 'bearer' });
    expect(wrongAgent.status).toBe(404);
    expect(wrongAgent.body).toEqual({ detail: 'Workflow run not found' });
  });
});
