import { Client, Connection } from '@temporalio/client';
import request from 'supertest';
import { buildTestApp } from '../helpers/app';
import { takeDatabaseOffline } from '../helpers/test-db';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

const server = (env: Record<string, string> = {}) => services.server(env);

describe('GET /api/v1/health', () => {
  it('answers the spec fields without credentials', async () => {
    const res = await request(server({ PUBLIC_BASE_URL: 'https://calls.example.com' })).get('/api/v1/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      backend_api_endpoint: 'https://calls.example.com',
      deployment_mode: 'oss',
      auth_provider: 'local',
    });
  });
});

describe('GET /api/v1/health/ready', () => {
  it('is 200 when PostgreSQL and Temporal answer', async () => {
    const res = await request(server()).get('/api/v1/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok' } });
  });

  it('is 503 naming PostgreSQL when the database refuses connections, and recovers', async () => {
    const bringBack = await takeDatabaseOffline(services.db.name);
    try {
      const res = await request(server()).get('/api/v1/health/ready');
      expect(res.status).toBe(503);
      expect(res.body.detail).toMatch(/^Not ready: PostgreSQL is unavailable/);
      expect(res.body.detail).not.toMatch(/Temporal/);
    } finally {
      await bringBack();
    }
    expect((await request(server()).get('/api/v1/health/ready')).status).toBe(200);
  });

  it('is 503 naming Temporal when no Temporal server answers', async () => {
    // A port nothing listens on: the lazy connection fails on first use, as in an outage.
    const connection = Connection.lazy({ address: '127.0.0.1:1', connectTimeout: '1 second' });
    const deadTemporal = new Client({ connection, namespace: 'default' });
    const { app } = buildTestApp({ dataSource: services.db.dataSource, temporal: deadTemporal });
    const res = await request(app.callback()).get('/api/v1/health/ready');
    expect(res.status).toBe(503);
    expect(res.body.detail).toMatch(/Temporal is unavailable/);
    expect(res.body.detail).not.toMatch(/PostgreSQL/);
  });
});

describe('HTTP conventions', () => {
  it('answers unknown routes with 404 {detail}', async () => {
    const res = await request(server()).get('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not Found' });
  });

  it('answers a wrong method with 405, an Allow header and {detail}', async () => {
    const res = await request(server()).delete('/api/v1/health');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain('GET');
    expect(res.body).toEqual({ detail: 'Method Not Allowed' });
  });

  it('answers a body over JSON_BODY_LIMIT_BYTES with 413', async () => {
    const res = await request(server({ JSON_BODY_LIMIT_BYTES: '2048' }))
      .post('/api/v1/auth/login')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ blob: 'x'.repeat(4096) }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: 'Request body too large' });
  });

  it('answers malformed JSON with a FastAPI-shaped 422', async () => {
    const res = await request(server())
      .post('/api/v1/auth/login')
      .set('Content-Type', 'application/json')
      .send('{"not json');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] });
  });

  it('echoes a well-formed X-Request-Id and mints one otherwise', async () => {
    const mine = await request(server()).get('/api/v1/health').set('X-Request-Id', 'abc-123');
    expect(mine.headers['x-request-id']).toBe('abc-123');
    const minted = await request(server()).get('/api/v1/health').set('X-Request-Id', 'bad id with spaces');
    expect(minted.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('OpenAPI, docs and metrics', () => {
  it('serves an OpenAPI 3.1 document generated from the route schemas', async () => {
    const res = await request(server()).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/health', '/health/ready', '/health/deep']));
    expect(res.body.components.schemas.HealthResponse.required).toEqual(
      expect.arrayContaining(['status', 'version', 'backend_api_endpoint', 'deployment_mode', 'auth_provider']),
    );
    expect(Object.keys(res.body.components.securitySchemes)).toEqual(['ApiKey', 'SessionToken']);
  });

  it('renders /docs from local assets (no CDN)', async () => {
    const app = server();
    const page = await request(app).get('/docs');
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/https?:\/\//);
    expect((await request(app).get('/docs/init.js')).text).toContain("url: '/api/v1/openapi.json'");
    const bundle = await request(app).get('/docs/assets/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
  });

  it('exposes process metrics and request durations by route pattern', async () => {
    const app = server();
    await request(app).get('/api/v1/health');
    const res = await request(app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toContain('process_cpu_user_seconds_total');
    expect(res.text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/health",status="200"\} 1/,
    );
  });
});
