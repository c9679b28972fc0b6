import bcrypt from 'bcryptjs';
import request from 'supertest';
import { createAuthServices } from '../../api/auth/auth-services';
import { createRoutes } from '../../api/app';
import { requiredScope } from '../../api/auth/scopes';
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
// A valid IPv4 address per call, however many a test takes (a timed loop takes hundreds).
const freshAddress = () => {
  addressCounter += 1;
  return `198.18.${Math.floor(addressCounter / 256) % 256}.${addressCounter % 256}`;
};

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

/** The call API takes `X-API-Key` only; every other route takes both. */
const API_KEY_ONLY = /^\/public\/agent\//;
/** What only the user may do: revoke their sessions, change their password. */
const SESSION_ONLY = /^\/auth\/(logout|password)$/;

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
        sessionOnly: SESSION_ONLY.test(spec.path),
        scope: requiredScope(spec),
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
    // Logging out would revoke the token the loop uses: it has its own tests.
    const routes = authenticatedRoutes().filter(({ openapiPath }) => openapiPath !== '/auth/logout');
    for (const { name, method, url, apiKeyOnly, sessionOnly } of routes) {
      const body = method === 'post' || method === 'put' ? { name: 'k' } : undefined;
      const withToken = await request(app)[method](url).auth(token, { type: 'bearer' }).send(body);
      const withKey = await request(app)[method](url).set('X-API-Key', api_key).send(body);
      expect({ name, keyRefused: withKey.status === 401 }).toEqual({ name, keyRefused: sessionOnly });
      expect({ name, tokenRefused: withToken.status === 401 }).toEqual({ name, tokenRefused: apiKeyOnly });
    }
  });

  it('is documented with its schemes and the scope an API key needs, and public routes with none', async () => {
    const doc = (await request(server()).get('/api/v1/openapi.json')).body as {
      paths: Record<string, Record<string, { security: unknown[]; responses: Record<string, unknown> }>>;
    };
    for (const { name, method, openapiPath, apiKeyOnly, sessionOnly, scope } of authenticatedRoutes()) {
      const operation = doc.paths[openapiPath]?.[method];
      const expected = apiKeyOnly
        ? [{ ApiKey: [scope] }]
        : sessionOnly
          ? [{ SessionToken: [] }]
          : [{ ApiKey: [scope] }, { SessionToken: [] }];
      expect({ name, security: operation?.security }).toEqual({ name, security: expected });
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
  const sleepSeconds = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

  it('backs an email off after 5 failures, across app instances sharing the database', async () => {
    const [first, second] = [server(), server()];
    const { email } = await signUp(first);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const res = await login(attempt % 2 ? first : second, email, 'wrong password', freshAddress());
      expect(res.status).toBe(401);
    }
    const throttled = await login(second, email, TEST_PASSWORD, freshAddress());
    expect(throttled.status).toBe(429);
    const retryAfter = Number(throttled.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect(throttled.body).toEqual({ detail: `Too many failed login attempts; try again in ${retryAfter} seconds` });
  });

  it('never holds the right password back longer than the backoff cap, however many guesses others send', async () => {
    const app = server({ LOGIN_MAX_BACKOFF_SECONDS: '2' });
    const { email } = await signUp(app);
    // The attacker keeps guessing from many addresses for a while: what used to lock the account.
    const until = Date.now() + 3_000;
    while (Date.now() < until) await login(app, email, 'wrong password', freshAddress());
    const owner = freshAddress();
    const first = await login(app, email, TEST_PASSWORD, owner);
    if (first.status === 429) {
      expect(Number(first.headers['retry-after'])).toBeLessThanOrEqual(2);
      await sleepSeconds(Number(first.headers['retry-after']));
      expect((await login(app, email, TEST_PASSWORD, owner)).status).toBe(200);
    } else {
      expect(first.status).toBe(200);
    }
  });

  it('counts the address the trusted proxy saw, not the ones the client wrote before it', async () => {
    const app = server({ LOGIN_MAX_FAILURES_PER_ADDRESS: '3' });
    const attacker = freshAddress();
    // Each request claims a new origin; the proxy appends the address it really came from.
    const spoofed = (n: number) => `10.9.${n}.1, ${attacker}`;
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      expect((await login(app, uniqueEmail(), 'wrong password', spoofed(attempt))).status).toBe(401);
    }
    const throttled = await login(app, uniqueEmail(), 'wrong password', spoofed(4));
    expect(throttled.status).toBe(429);
    expect((await login(app, uniqueEmail(), 'wrong password', freshAddress())).status).toBe(401);
  });

  it('trusts no X-Forwarded-For entry without TRUST_PROXY', async () => {
    const app = server({ TRUST_PROXY: 'false', LOGIN_MAX_FAILURES_PER_ADDRESS: '2' });
    // Every request comes from the test's own socket address, whatever the header says.
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      expect((await login(app, uniqueEmail(), 'wrong password', freshAddress())).status).toBe(401);
    }
    expect((await login(app, uniqueEmail(), 'wrong password', freshAddress())).status).toBe(429);
  });

  it('does not take failures off the address when someone at it logs in', async () => {
    const app = server({ LOGIN_MAX_FAILURES_PER_ADDRESS: '3' });
    const address = freshAddress();
    const { email } = await signUp(app);
    // An attacker with an account of their own slips successes between guesses at other accounts.
    for (let guess = 1; guess <= 3; guess += 1) {
      expect((await login(app, uniqueEmail(), 'wrong password', address)).status).toBe(401);
      expect((await login(app, email, TEST_PASSWORD, address)).status).toBe(guess < 3 ? 200 : 429);
    }
    expect((await login(app, uniqueEmail(), 'wrong password', address)).status).toBe(429);
  });

  it('holds a new user behind an address where others failed for a short backoff only', async () => {
    const app = server({ LOGIN_MAX_FAILURES_PER_ADDRESS: '3', LOGIN_MAX_BACKOFF_SECONDS: '2' });
    const shared = freshAddress();
    const statuses = new Set<number>();
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      statuses.add((await login(app, uniqueEmail(), 'wrong password', shared)).status);
    }
    // Right after the third failure the address waits: a burst of further guesses is refused.
    const burst = await Promise.all(
      Array.from({ length: 5 }, () => login(app, uniqueEmail(), 'wrong password', shared)),
    );
    for (const res of burst) statuses.add(res.status);
    expect([...statuses].sort()).toEqual([401, 429]);
    const { email } = await signUp(app);
    const first = await login(app, email, TEST_PASSWORD, shared);
    if (first.status === 429) {
      expect(Number(first.headers['retry-after'])).toBeLessThanOrEqual(2);
      await sleepSeconds(Number(first.headers['retry-after']));
      expect((await login(app, email, TEST_PASSWORD, shared)).status).toBe(200);
    } else {
      expect(first.status).toBe(200);
    }
  });

  it('counts a parallel burst over many emails from one address before any password is checked', async () => {
    const app = server({ LOGIN_MAX_FAILURES_PER_ADDRESS: '3' });
    const address = freshAddress();
    const burst = await Promise.all(
      Array.from({ length: 12 }, () => login(app, uniqueEmail(), 'wrong password', address)),
    );
    const statuses = burst.map((res) => res.status).sort();
    expect(statuses).toEqual([401, 401, 401, ...Array<number>(9).fill(429)]);
  });

  it('throttles an IPv6 client by its /64, whichever address of it each attempt comes from', async () => {
    const app = server({ LOGIN_MAX_FAILURES_PER_ADDRESS: '3' });
    const network = `2001:db8:${(addressCounter += 1).toString(16)}:7`;
    for (const host of ['::1', ':ffff:ffff:ffff:ffff', ':1:2:3:4']) {
      expect((await login(app, uniqueEmail(), 'wrong password', `${network}${host}`)).status).toBe(401);
    }
    const rotated = await login(app, uniqueEmail(), 'wrong password', `${network}:abcd::99`);
    expect(rotated.status).toBe(429);
    // The next /64 is another client.
    expect((await login(app, uniqueEmail(), 'wrong password', `${network.slice(0, -1)}8::1`)).status).toBe(401);
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address it carries', async () => {
    const app = server({ LOGIN_MAX_FAILURES_PER_ADDRESS: '2' });
    const address = freshAddress();
    expect((await login(app, uniqueEmail(), 'wrong password', address)).status).toBe(401);
    expect((await login(app, uniqueEmail(), 'wrong password', `::ffff:${address}`)).status).toBe(401);
    expect((await login(app, uniqueEmail(), 'wrong password', address)).status).toBe(429);
  });

  it('lets parallel guesses past the free failures no further', async () => {
    const app = server();
    const { email } = await signUp(app);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => login(app, email, 'wrong password', freshAddress())),
    );
    const statuses = results.map((res) => res.status).sort();
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
  });
});

describe('signup', () => {
  const signup = (app: ReturnType<typeof server>, email: string, password: string, address = freshAddress()) =>
    request(app).post('/api/v1/auth/signup').set('X-Forwarded-For', address).send({ email, password });

  it('answers a registered email as a new one, in about the same time', async () => {
    // At the production work factor: with a cheap hash the difference would drown in noise.
    const app = server({ PASSWORD_HASH_ROUNDS: '12' });
    const { email } = await signUp(app);
    const timed = async (address: string, signupEmail: string) => {
      const started = performance.now();
      const res = await signup(app, signupEmail, 'attacker password', address);
      return { res, ms: performance.now() - started };
    };
    const taken = [];
    const fresh = [];
    for (let round = 0; round < 3; round += 1) {
      taken.push(await timed(freshAddress(), email));
      fresh.push(await timed(freshAddress(), uniqueEmail()));
    }
    for (const { res } of [...taken, ...fresh]) {
      expect({ status: res.status, body: res.body }).toEqual({ status: 202, body: fresh[0]?.res.body });
    }
    // Both spend a password hash: a taken email answered without one would take a small fraction.
    const median = (runs: { ms: number }[]) => runs.map((run) => run.ms).sort((a, b) => a - b)[1] ?? 0;
    expect(median(taken)).toBeGreaterThan(median(fresh) * 0.5);
    // The attacker's password was not set on the account.
    expect((await login(app, email, 'attacker password')).status).toBe(401);
    expect((await login(app, email, TEST_PASSWORD)).status).toBe(200);
  });

  it('backs off signups from one address', async () => {
    const app = server({ SIGNUP_MAX_PER_ADDRESS: '3' });
    const address = freshAddress();
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      expect((await signup(app, uniqueEmail(), TEST_PASSWORD, address)).status).toBe(202);
    }
    const throttled = await signup(app, uniqueEmail(), TEST_PASSWORD, address);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(throttled.body.detail).toMatch(/^Too many signups from this address; try again in \d+ seconds$/);
    expect((await signup(app, uniqueEmail(), TEST_PASSWORD, freshAddress())).status).toBe(202);
  });

  const login = (app: ReturnType<typeof server>, email: string, password: string) =>
    request(app).post('/api/v1/auth/login').set('X-Forwarded-For', freshAddress()).send({ email, password });
});

describe('password hashing', () => {
  it('keeps the event loop free while many passwords are checked', async () => {
    const app = server({ PASSWORD_HASH_ROUNDS: '12' });
    const { email } = await signUp(app);
    // What one hash costs this machine now, on this thread.
    const calibration = performance.now();
    bcrypt.hashSync('calibration', 12);
    const oneHashMs = performance.now() - calibration;

    const before = performance.eventLoopUtilization();
    await Promise.all(
      Array.from({ length: 4 }, (_, n) =>
        request(app)
          .post('/api/v1/auth/login')
          .set('X-Forwarded-For', freshAddress())
          .send({ email: n % 2 ? email : uniqueEmail(), password: 'wrong password' }),
      ),
    );
    const busy = performance.eventLoopUtilization(before);
    // Four hashes on this thread would keep it busy for four times `oneHashMs`.
    expect(busy.active).toBeLessThan(oneHashMs * 1.5);
  });
});
