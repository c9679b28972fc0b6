import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NativeConnection } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import request from 'supertest';
import { createActivities } from '../../activities';
import { DiskRecordingStore } from '../../voice/disk-recording-store';
import { dataRetentionWorkflow } from '../../workflows/data-retention.workflow';
import { ensureDataRetentionSchedule } from '../../workers/data-retention-schedule';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { createAgent, type CreatedAgent } from '../helpers/agents';
import { useTestServices } from '../helpers/services';
import { testDataConverter, testWorkflowBundle, uniqueTaskQueue } from '../helpers/temporal';
import { createTimeSkippingEnvironment } from '../helpers/time-skipping';
import { waitFor } from '../helpers/wait-for';

const services = useTestServices();
let app: TestServer;
let recordingsDir: string;
let owner: SignedUp;
let agent: CreatedAgent;

beforeAll(async () => {
  recordingsDir = await mkdtemp(join(tmpdir(), 'retention-recordings-'));
  app = services.server({ RECORDINGS_DIR: recordingsDir });
  owner = await signUp(app);
  agent = await createAgent(app, owner.token, undefined, 'Retention agent');
  const set = await request(app)
    .put('/api/v1/organizations/retention')
    .auth(owner.token, { type: 'bearer' })
    .send({ retention_days: 30 });
  expect(set.status).toBe(200);
});

/** A finished call `daysAgo` days old, with a transcript and a recording on disk. */
async function insertCall(daysAgo: number): Promise<number> {
  const [row] = await services.db.dataSource.query<{ id: number }[]>(
    `INSERT INTO runs (organization_id, workflow_id, definition_id, name, mode, state, is_completed, called_number,
                       call_duration_seconds, logs, created_at)
     VALUES ($1, $2, $3, 'call', 'simulator', 'completed', true, '+14155550100', 30,
             '{"transcript": [{"at": "2026-03-02T15:04:05.000Z", "role": "user", "text": "hello"}]}',
             now() - make_interval(days => $4))
     RETURNING id`,
    [owner.user.organization_id, agent.id, agent.current_definition_id, daysAgo],
  );
  const runId = row!.id;
  await writeFile(join(recordingsDir, `${runId}.wav`), Buffer.alloc(64));
  await services.db.dataSource.query(`UPDATE runs SET recording_url = 'set' WHERE id = $1`, [runId]);
  return runId;
}

const erasedOf = async (runIds: number[]) =>
  (
    await services.db.dataSource.query<{ id: number }[]>(
      `SELECT id FROM runs WHERE id = ANY($1) AND erased_at IS NOT NULL AND logs = '{}' AND recording_url IS NULL
        ORDER BY id`,
      [runIds],
    )
  ).map((row) => row.id);

const retentionWorker = (connection: NativeConnection, taskQueue: string) =>
  Worker.create({
    connection,
    taskQueue,
    workflowBundle: testWorkflowBundle(),
    dataConverter: testDataConverter,
    activities: createActivities({
      dataSource: services.db.dataSource,
      workerIdentity: 'retention-test',
      recordings: new DiskRecordingStore(recordingsDir),
    }),
  });

describe('retention sweep workflow (time skipping)', () => {
  let env: TestWorkflowEnvironment;
  beforeAll(async () => {
    env = await createTimeSkippingEnvironment();
  }, 180_000);
  afterAll(async () => {
    await env?.teardown();
  });

  it('erases expired runs in bounded batches, pausing between them, and stops at its batch limit', async () => {
    const old = [
      await insertCall(40),
      await insertCall(41),
      await insertCall(42),
      await insertCall(43),
      await insertCall(44),
    ];
    const fresh = await insertCall(2);
    const taskQueue = uniqueTaskQueue('retention-skipping');
    const worker = await retentionWorker(env.nativeConnection, taskQueue);
    await worker.runUntil(async () => {
      // An hour between batches: time skipping makes it instant.
      const input = { batchSize: 2, maxBatches: 2, pause: '1 hour' };
      const first = await env.client.workflow.execute(dataRetentionWorkflow, {
        taskQueue,
        workflowId: `retention-${taskQueue}-1`,
        args: [input],
      });
      expect(first).toBe(4);
      expect(await erasedOf(old)).toHaveLength(4);
      const second = await env.client.workflow.execute(dataRetentionWorkflow, {
        taskQueue,
        workflowId: `retention-${taskQueue}-2`,
        args: [input],
      });
      expect(second).toBe(1);
    });
    expect(await erasedOf(old)).toEqual(old);
    expect(await erasedOf([fresh])).toEqual([]);
    const files = await readdir(recordingsDir);
    expect(files).toContain(`${fresh}.wav`);
    for (const runId of old) expect(files).not.toContain(`${runId}.wav`);
  });
});

describe('retention schedule (dev server)', () => {
  it('is created once, visible as a Schedule, and its sweep erases what is past retention', async () => {
    const expired = await insertCall(31);
    const kept = await insertCall(29);
    const client = services.temporal.client;
    const taskQueue = uniqueTaskQueue('retention-schedule');
    const scheduleId = `data-retention-${taskQueue}`;
    expect(await ensureDataRetentionSchedule(client, taskQueue, scheduleId)).toBe('created');
    expect(await ensureDataRetentionSchedule(client, taskQueue, scheduleId)).toBe('exists');
    const handle = client.schedule.getHandle(scheduleId);
    try {
      const described = await handle.describe();
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'dataRetentionWorkflow' });
      const worker = await retentionWorker(services.temporal.nativeConnection, taskQueue);
      await worker.runUntil(async () => {
        await handle.trigger();
        await waitFor('the expired run erased', async () => (await erasedOf([expired])).length === 1 || undefined, {
          timeoutMs: 30_000,
          intervalMs: 200,
        });
      });
      expect(await erasedOf([kept])).toEqual([]);
    } finally {
      await handle.delete();
    }
  });
});
