import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import request from 'supertest';
import { buildTestApp } from '../helpers/app';
import { useTestServices } from '../helpers/services';
import { takeDatabaseOffline } from '../helpers/test-db';

const services = useTestServices();
const OPERATOR_TOKEN = 'operator-token-of-at-least-32-characters';
const OPERATOR_ONLY = 'Operator access only: send X-Operator-Token (OPERATOR_TOKEN)';

/** The API behind one proxy, as it runs in production; clients come from the internet. */
const behindProxy = (env: Record<string, string> = {}) => services.server({ TRUST_PROXY: '1', OPERATOR_TOKEN, ...env });
const fromInternet = '198.51.100.77';

describe('operator routes', () => {
  it.each(['/metrics', '/api/v1/health/deep'])('%s refuses anonymous and wrong-token callers', async (path) => {
    const app = behindProxy();
    const anonymous = await request(app).get(path).set('X-Forwarded-For', fromInternet);
    expect(anonymous.status).toBe(403);
    expect(anonymous.body).toEqual({ detail: OPERATOR_ONLY });
    const guessed = await request(app)
      .get(path)
      .set('X-Forwarded-For', fromInternet)
      .set('X-Operator-Token', 'a guess of at least thirty-two characters');
    expect(guessed.status).toBe(403);
    // The proxy itself connects from this host: that does not make its clients local.
    expect((await request(app).get(path)).status).toBe(403);
  });

  it('serves metrics with the operator token', async () => {
    const res = await request(behindProxy())
      .get('/metrics')
      .set('X-Forwarded-For', fromInternet)
      .set('X-Operator-Token', OPERATOR_TOKEN);
    expect(res.status).toBe(200);
    expect(res.text).toContain('process_cpu_user_seconds_total');
  });

  it('starts one workflow for a flood of deep checks', async () => {
    // A task queue no worker polls: every check waits out its 10 s and fails.
    const app = behindProxy({ TEMPORAL_TASK_QUEUE: `nobody-polls-${randomUUID()}` });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => request(app).get('/api/v1/health/deep').set('X-Operator-Token', OPERATOR_TOKEN)),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(10).fill(503));
    const workflows = new Set(answers.map((res) => /check (\S+) failed/.exec(String(res.body.detail))?.[1]));
    expect(workflows.size).toBe(1);
  });
});

describe('public readiness', () => {
  it('names what is down without its internals', async () => {
    const bringBack = await takeDatabaseOffline(services.db.name);
    try {
      const res = await request(services.server()).get('/api/v1/health/ready');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ detail: 'Not ready: PostgreSQL is unavailable' });
    } finally {
      await bringBack();
    }
    const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: '1 second' });
    const { app } = buildTestApp({
      dataSource: services.db.dataSource,
      temporal: new Client({ connection, namespace: 'default' }),
    });
    const res = await request(app.callback()).get('/api/v1/health/ready');
    expect(res.body).toEqual({ detail: 'Not ready: Temporal is unavailable' });
  });
});
