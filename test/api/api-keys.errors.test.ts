import request from 'supertest';
import { buildTestApp } from '../helpers/app';
import { signUp } from '../helpers/accounts';
import { connectTestTemporal, type TestTemporal } from '../helpers/temporal';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

let db: TestDatabase;
let temporal: TestTemporal;
let token: string;
let app: ReturnType<typeof server>;

const server = () => buildTestApp({ dataSource: db.dataSource, temporal: temporal.client }).app.callback();

beforeAll(async () => {
  db = await createTestDatabase();
  temporal = await connectTestTemporal();
  app = server();
  ({ token } = await signUp(app));
});

afterAll(async () => {
  await temporal.close();
  await db.drop();
});

describe('API key errors', () => {
  it.each([['DELETE', '/api/v1/user/api-keys/987654']])('%s of an unknown id answers 404', async (_method, path) => {
    const res = await request(app).delete(path).auth(token, { type: 'bearer' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'API key not found' });
  });

  it('answers 422 for an id that is not a positive integer', async () => {
    const res = await request(app).delete('/api/v1/user/api-keys/abc').auth(token, { type: 'bearer' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['path', 'id'] })]);
  });

  it.each([['yes'], ['1'], ['TRUE']])('answers 422 for include_archived=%s (only true or false)', async (value) => {
    const res = await request(app)
      .get(`/api/v1/user/api-keys?include_archived=${value}`)
      .auth(token, { type: 'bearer' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'include_archived'] })]);
  });

  it.each([
    ['no name', {}],
    ['an empty name', { name: '  ' }],
    ['a name that is not a string', { name: 7 }],
  ])('answers 422 for %s', async (_label, body) => {
    const res = await request(app).post('/api/v1/user/api-keys').auth(token, { type: 'bearer' }).send(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'name'] })]);
  });

  it('authenticates before validating: a bad body without credentials is 401', async () => {
    const res = await request(app).post('/api/v1/user/api-keys').send({});
    expect(res.status).toBe(401);
  });
});
