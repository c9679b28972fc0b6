import Router from '@koa/router';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import request from 'supertest';
import type { AppState } from '../../api/context';
import { ConflictError } from '../../domain/errors';
import { errorHandler } from '../../api/middleware/error-handler';
import { defineRoute } from '../../api/route';
import { allowedMethods } from '../../api/middleware/allowed-methods';
import { IdParam, name, PageQuery } from '../../api/schemas/common';
import { z } from '../../api/zod';
import { createLogger } from '../../platform/logger';

// A small app over the real defineRoute and error middleware: what every route inherits.
const route = defineRoute(
  {
    method: 'post',
    path: '/things/{thing_id}',
    operationId: 'createThing',
    summary: 'test route',
    description: 'A route for the test.',
    tags: ['test'],
    security: [],
    params: z.object({ thing_id: IdParam }),
    query: PageQuery,
    body: z.object({ name: name(5), max_concurrency: z.number().int().min(1).max(100) }),
    responses: { 200: { description: 'ok' } },
  },
  (ctx, { params, query, body }) => {
    if (body.name === 'dup') throw new ConflictError('Already exists');
    if (body.name === 'boom') throw new Error('secret internals');
    if (body.name === 'range') throw Object.assign(new Error('integer out of range'), { code: '22003' });
    ctx.body = { id: params.thing_id, page: query.page, limit: query.limit, name: body.name };
  },
);

function app() {
  const koa = new Koa<AppState>();
  const logger = createLogger('silent', 'test');
  koa.use(async (ctx, next) => {
    ctx.state.log = logger;
    await next();
  });
  koa.use(errorHandler());
  koa.use(bodyParser());
  // As the app's router: of the routes matching a path, only the most specific runs.
  const router = new Router<AppState>({ exclusive: 'specificity' });
  router.post(route.koaPath, route.handler);
  router.post('/things/create', (ctx) => {
    ctx.body = { created: true };
  });
  router.get('/things/:thing_id', (ctx) => {
    ctx.body = { id: ctx.params.thing_id };
  });
  koa.use(allowedMethods([router]));
  koa.use(router.routes());
  return koa.callback();
}

describe('defineRoute + error middleware', () => {
  it('hands the handler typed, coerced input with defaults', async () => {
    const res = await request(app()).post('/things/7').send({ name: 'ok', max_concurrency: 3 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 7, page: 1, limit: 50, name: 'ok' });
  });

  it('answers 422 with FastAPI-shaped {loc, msg, type} pointing at the field', async () => {
    const res = await request(app()).post('/things/7').send({ name: 'ok', max_concurrency: 500 });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ['body', 'max_concurrency'], msg: expect.any(String), type: 'too_long' }]);
  });

  it('reports a missing field as type "missing"', async () => {
    const res = await request(app()).post('/things/7').send({ name: 'ok' });
    expect(res.body.detail).toEqual([{ loc: ['body', 'max_concurrency'], msg: expect.any(String), type: 'missing' }]);
  });

  it('validates path and query too, each under its own location', async () => {
    const res = await request(app()).post('/things/zero?limit=0').send({ name: 'ok', max_concurrency: 1 });
    expect(res.status).toBe(422);
    const issues = res.body.detail as { loc: unknown[] }[];
    expect(issues.map((issue) => issue.loc)).toEqual([
      ['path', 'thing_id'],
      ['query', 'limit'],
    ]);
  });

  it('turns a thrown AppError into {detail} with its status', async () => {
    const res = await request(app()).post('/things/7').send({ name: 'dup', max_concurrency: 1 });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: 'Already exists' });
  });

  it('hides unexpected errors behind a generic 500', async () => {
    const res = await request(app()).post('/things/7').send({ name: 'boom', max_concurrency: 1 });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ detail: 'Internal Server Error' });
    expect(JSON.stringify(res.body)).not.toContain('secret');
  });

  it('reports a value of the wrong type as "type_error", not "missing"', async () => {
    const res = await request(app()).post('/things/7').send({ name: 'ok', max_concurrency: 'three' });
    expect(res.body.detail).toEqual([
      { loc: ['body', 'max_concurrency'], msg: expect.any(String), type: 'type_error' },
    ]);
  });

  it('refuses ids beyond PostgreSQL integer with 422', async () => {
    const res = await request(app()).post('/things/3000000000').send({ name: 'ok', max_concurrency: 1 });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['path', 'thing_id']);
  });

  it('refuses NUL characters and over-long names before trimming, with 422', async () => {
    for (const bad of ['a\u0000b', ' '.repeat(6), '   ']) {
      const res = await request(app()).post('/things/7').send({ name: bad, max_concurrency: 1 });
      expect(res.status).toBe(422);
    }
    const trimmed = await request(app()).post('/things/7').send({ name: ' ok ', max_concurrency: 1 });
    expect(trimmed.body.name).toBe('ok');
  });

  it('answers 415 for a body that is not JSON, and 422 for no body at all', async () => {
    const plain = await request(app()).post('/things/7').set('Content-Type', 'text/plain').send('name=ok');
    expect(plain.status).toBe(415);
    const form = await request(app()).post('/things/7').type('form').send({ name: 'ok', max_concurrency: '1' });
    expect(form.status).toBe(415);
    const none = await request(app()).post('/things/7');
    expect(none.status).toBe(422);
    expect(none.body.detail).toEqual([{ loc: ['body'], msg: expect.any(String), type: 'missing' }]);
  });

  it('turns a PostgreSQL data exception (SQLSTATE class 22) into a 422', async () => {
    const res = await request(app()).post('/things/7').send({ name: 'range', max_concurrency: 1 });
    expect(res.status).toBe(422);
  });

  it('answers 405 with Allow for methods a path does not take, TRACE included', async () => {
    const trace = await request(app()).trace('/things/7');
    expect(trace.status).toBe(405);
    expect(trace.headers.allow).toBe('POST, HEAD, GET, OPTIONS');
  });

  it('keeps literal paths out of parameter routes', async () => {
    const get = await request(app()).get('/things/create');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST, OPTIONS');
    const options = await request(app()).options('/things/create');
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe('POST, OPTIONS');
    const created = await request(app()).post('/things/create');
    expect(created.body).toEqual({ created: true });
  });
});
