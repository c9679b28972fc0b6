import Router from '@koa/router';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import request from 'supertest';
import type { AppState } from '../../api/context';
import { ConflictError } from '../../api/errors';
import { errorHandler } from '../../api/middleware/error-handler';
import { defineRoute } from '../../api/route';
import { IdParam, PageQuery } from '../../api/schemas/common';
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
    body: z.object({ name: z.string().min(1).max(5), max_concurrency: z.number().int().min(1).max(100) }),
    responses: { 200: { description: 'ok' } },
  },
  (ctx, { params, query, body }) => {
    if (body.name === 'dup') throw new ConflictError('Already exists');
    if (body.name === 'boom') throw new Error('secret internals');
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
  const router = new Router<AppState>();
  router.post(route.koaPath, route.handler);
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
});
