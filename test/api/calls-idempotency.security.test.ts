import { Client } from '@temporalio/client';
import request from 'supertest';
import { requestHash } from '../../domain/calls/idempotency';
import type { TestServer } from '../helpers/accounts';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { testDataConverter, uniqueTaskQueue } from '../helpers/temporal';

const services = useTestServices();
// No worker polls it: the workflows started here only need to exist.
const taskQueue = uniqueTaskQueue('idempotency');
const env = { SECRETS_KEY: TEST_SECRETS_KEY, TEMPORAL_TASK_QUEUE: taskQueue };

let app: TestServer;
let org: CallingOrganization;

beforeAll(async () => {
  app = services.server(env);
  org = await callingOrganization(app);
});

const call = (server: TestServer, key: string, phone: string) =>
  request(server)
    .post(`/api/v1/public/agent/${org.triggerPath}`)
    .set('X-API-Key', org.apiKey)
    .set('Idempotency-Key', key)
    .send({ phone_number: phone });

const runsTo = async (phone: string) => {
  const rows = await services.db.dataSource.query<{ temporal_workflow_id: string }[]>(
    `SELECT temporal_workflow_id FROM runs WHERE organization_id = $1 AND called_number = $2`,
    [org.owner.user.organization_id, phone],
  );
  return rows.map((row) => row.temporal_workflow_id);
};

it('keeps the key when the workflow start may have happened, so a retry cannot dial twice', async () => {
  // Temporal starts the workflow but its answer is lost on the way back, as when a connection drops.
  const lossy = new Client({
    connection: services.temporal.client.connection,
    namespace: 'default',
    dataConverter: testDataConverter,
    interceptors: {
      workflow: [
        {
          async start(input, next) {
            await next(input);
            throw new Error('connection reset before the answer arrived');
          },
        },
      ],
    },
  });
  const first = await call(services.server(env, lossy), 'ambiguous', '+14155550161');
  expect(first.status).toBe(500);
  const [workflowId] = await runsTo('+14155550161');
  expect((await services.temporal.client.workflow.getHandle(workflowId ?? '').describe()).status.name).toBe('RUNNING');

  const retry = await call(app, 'ambiguous', '+14155550161');
  expect(retry.status).toBe(409);
  expect(await runsTo('+14155550161')).toHaveLength(1);
});

it('keeps the key when the answer cannot be saved after the call was placed', async () => {
  const { dataSource } = services.db;
  await dataSource.query(`
    CREATE FUNCTION refuse_answer() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'disk full'; END $$`);
  await dataSource.query(`
    CREATE TRIGGER refuse_answer BEFORE UPDATE ON call_idempotency_keys
      FOR EACH ROW WHEN (NEW.response IS NOT NULL) EXECUTE FUNCTION refuse_answer()`);
  try {
    expect((await call(app, 'unsaved', '+14155550162')).status).toBe(500);
  } finally {
    await dataSource.query(`DROP FUNCTION refuse_answer() CASCADE`);
  }
  expect((await call(app, 'unsaved', '+14155550162')).status).toBe(409);
  expect(await runsTo('+14155550162')).toHaveLength(1);
});

it('releases the key when nothing was started', async () => {
  const unknownNumber = await request(app)
    .post(`/api/v1/public/agent/${org.triggerPath}`)
    .set('X-API-Key', org.apiKey)
    .set('Idempotency-Key', 'refused')
    .send({ phone_number: '+14155550163', from_phone_number_id: 2147483647 });
  expect(unknownNumber.status).toBe(404);
  // The client fixes its request and tries again with the same key.
  expect((await call(app, 'refused', '+14155550163')).status).toBe(200);
});

it('lets a reservation whose request never answered expire', async () => {
  const reserve = (key: string, phone: string, age: string) =>
    services.db.dataSource.query(
      `INSERT INTO call_idempotency_keys (organization_id, key, request_hash, created_at)
       VALUES ($1, $2, $3, now() - $4::interval)`,
      [org.owner.user.organization_id, key, requestHash(`trigger:${org.triggerPath}`, { phone_number: phone }), age],
    );
  await reserve('crashed-recently', '+14155550164', '1 minute');
  expect((await call(app, 'crashed-recently', '+14155550164')).status).toBe(409);
  await reserve('crashed-long-ago', '+14155550165', '11 minutes');
  const taken = await call(app, 'crashed-long-ago', '+14155550165');
  expect(taken.status).toBe(200);
  expect((await call(app, 'crashed-long-ago', '+14155550165')).body).toEqual(taken.body);
});
