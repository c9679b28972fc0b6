import { hostname } from 'node:os';
import { Worker } from '@temporalio/worker';
import request from 'supertest';
import { createActivities } from '../../activities';
import { buildTestApp } from '../helpers/app';
import { testDataConverter, testWorkflowBundle, uniqueTaskQueue } from '../helpers/temporal';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

it('goes HTTP → API → Temporal → worker → activity → PostgreSQL and back', async () => {
  const taskQueue = uniqueTaskQueue('deep-health');
  const identity = `e2e-${process.pid}@${hostname()}`;
  const worker = await Worker.create({
    connection: services.temporal.nativeConnection,
    taskQueue,
    identity,
    workflowBundle: testWorkflowBundle(),
    dataConverter: testDataConverter,
    activities: createActivities({ dataSource: services.db.dataSource, workerIdentity: identity }),
  });
  const { app } = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: taskQueue },
  );

  const res = await worker.runUntil(request(app.callback()).get('/api/v1/health/deep'));

  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'ok', worker_identity: identity, database_name: services.db.name });
  expect(Date.now() - Date.parse(res.body.database_time)).toBeLessThan(60_000);
  // The workflow really ran in Temporal and is there for operators to inspect.
  const description = await services.temporal.client.workflow.getHandle(res.body.workflow_id).describe();
  expect(description.status.name).toBe('COMPLETED');
  expect(description.taskQueue).toBe(taskQueue);
});
