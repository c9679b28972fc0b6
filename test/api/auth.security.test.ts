import request from 'supertest';
import { createAuthServices } from '../../api/auth/auth-services';
import { createRoutes } from '../../api/app';
import { buildTestApp } from '../helpers/app';
import { createApiKey, signUp, TEST_PASSWORD, uniqueEmail } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

const build = (env: Record<string, string> = {}) =>
  // Behind a trusted proxy, so each test can play several clients with X-Forwarded-For.
  buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TRUST_PROXY: 'true', ...env },
  );
const server = (env: Record<string, string> = {}) => build(env).app.callback();

let addressCounter = 0;
const freshAddress = () => `203.0.113.${(addressCounter += 1)}`;

describe('credential precedence', () => {
  it('judges a request by its API key when both headers are sent', async () => {
    const app = server();
    const { token, user } = await signUp(app);
    const { api_key } = await createApiKey(app, token);

    const validKeyGarbageToken = await request(app)
      .get('/api/v1/auth/me')
      .set('X-API-Key', api_key)
      .set('Authorization', 'Bearer garbage');
    expect(validKeyGarbageToken.status).toBe(200);
    expect(validKeyGarbageToken.body.id).toBe(user.id);

    const garbageKeyValidToken = await request(app)
      .get('/api/v1/auth/me')
      .set('X-API-Key', 'garbage')
      .auth(token, { type: 'bearer' });
    expect(garbageKeyValidToken.status).toBe(401);
    expect(garbageKeyValidToken.body).toEqual({ detail: 'Invalid or expired API key' });
  });
});

/** The call API takes `X-API-Key` only (DECISIONS, "Calls and runs"); every other route takes both. */
const API_KEY_ONLY = /^\/public\/agent\//;

describe('every route that declares credentials', () => {
  // Built inside the tests: route factories need the initialized database.
  const authenticatedRoutes = () => {
    const { deps } = build();
    return createRoutes(deps, createAuthServices(deps))
      .filter((route) => route.spec.security.length > 0)
      .map(({ spec }) => ({
        name: `${spec.method.toUpperCase()} ${spec.path}`,
        method: spec.method,
        openapiPath: spec.path,
        apiKeyOnly: API_KEY_ONLY.test(spec.path),
        // An id no row has: past authentication the route answers 404, never 401, and changes nothing.
        url: `/api/v1${spec.path.replace(/\{\w+\}/g, '2147483647')}`,
      }));
  };

  it('answers 401 without credentials', async () => {
    const app = server();
    for (const { name, method, url } of authenticatedRoutes()) {
      const res = await request(app)[method](url);
      expect({ name, status: res.status }).toEqual({ name, status: 401 });
    }
  });

  it('accepts both a session token and an API key', async () => {
    const app = server();
    const { token } = await signUp(app);
    const { api_key } = await createApiKey(app, token);
    for (const { name, method, url, apiKeyOnly } of authenticatedRoutes()) {
      const body = method === 'post' || method === 'put' ? { name: 'k' } : undefined;
      const withToken = await request(app)[method](url).auth(token, { type: 'bearer' }).send(body);
      const withKey = await request(app)[method](url).set('X-API-Key', api_key).send(body);
      expect({ name, status: withKey.status }).not.toEqual({ name, status: 401 });
      expect({ name, tokenRefused: withToken.status === 401 }).toEqual({ name, tokenRefused: apiKeyOnly });
    }
  });

  it('is documented with both schemes, and public routes with none', async () => {
    const doc = (await request(server()).get('/api/v1/openapi.json')).body as {
      paths: Record<string, Record<string, { security: unknown[]; responses: Record<string, unknown> }>>;
    };
    for (const { name, method, openapiPath, apiKeyOnly } of authenticatedRoutes()) {
      const operation = doc.paths[openapiPath]?.[method];
      expect({ name, security: operation?.security }).toEqual({
        name,
        security: apiKeyOnly ? [{ ApiKey: [] }] : [{ ApiKey: [] }, { SessionToken: [] }],
      });
      expect(operation?.responses).toHaveProperty('401');
    }
    expect(doc.paths['/auth/login']?.post?.security).toEqual([]);
    expect(doc.paths['/auth/signup']?.post?.security).toEqual([]);
    expect(doc.paths['/health']?.get?.security).toEqual([]);
  });
});

describe('login throttling', () => {
  const login = (app: ReturnType<typeof server>, email: string, password: string, address: string) =>
    request(app).post('/api/v1/auth/login').set('X-Forwarded-For', address).send({ email, password });

  it('answers 429 with Retry-After after 5 failures for an email, across app instances sharing the database', async () => {
    const [first, second] = [server(), server()];
    const { email } = await signUp(first);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const res = await login(attempt % 2 ? first : second, email, 'wrong password', freshAddress());
      expect(res.status).toBe(401);
    }
    // Even the right password, from another address, on the other instance.
    const throttled = await login(second, email, TEST_PASSWORD, freshAddress());
    expect(throttled.status).toBe(429);
    const retryAfter = Number(throttled.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(throttled.body).toEqual({ detail: `Too many failed login attempts; try again in ${retryAfter} seconds` });
  });

  it('clears the email count on a successful login', async () => {
    const app = server();
    const { email } = await signUp(app);
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      expect((await login(app, email, 'wrong password', freshAddress())).status).toBe(401);
    }
    expect((await login(app, email, TEST_PASSWORD, freshAddress())).status).toBe(200);
    for (let attempt = 1; attempt <= 4; attempt += 1) {
      expect((await login(app, email, 'wrong password', freshAddress())).status).toBe(401);
    }
    expect((await login(app, email, TEST_PASSWORD, freshAddress())).status).toBe(200);
  });

  it('limits failures per client address, whatever the email', async () => {
    const app = server({ LOGIN_MAX_FAILURES_PER_ADDRESS: '3' });
    const address = freshAddress();
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      expect((await login(app, uniqueEmail(), 'wrong password', address)).status).toBe(401);
    }
    const throttled = await login(app, uniqueEmail(), 'wrong password', address);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect((await login(app, uniqueEmail(), 'wrong password', freshAddress())).status).toBe(401);
  });

  it('lets parallel guesses past the limit no further than the limit', async () => {
    const app = server();
    const { email } = await signUp(app);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => login(app, email, 'wrong password', freshAddress())),
    );
    const statuses = results.map((res) => res.status).sort();
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
  });
});
