import { SignJWT } from 'jose';
import request from 'supertest';
import { User } from '../../entities';
import { buildTestApp, TEST_SESSION_SECRET } from '../helpers/app';
import { signUp, TEST_PASSWORD, uniqueEmail } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

const server = (env: Record<string, string> = {}) =>
  // Behind a trusted proxy, so each test can play several clients with X-Forwarded-For.
  buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TRUST_PROXY: 'true', ...env },
  ).app.callback();

// Each test logs in from its own address, so the per-address login limit of one test cannot reach another.
let addressCounter = 0;
const freshAddress = () => `198.51.100.${(addressCounter += 1)}`;

describe('signup errors', () => {
  it('answers a registered email, in any case, as a new one and leaves its account alone', async () => {
    const app = server();
    const { email } = await signUp(app);
    const res = await request(app)
      .post('/api/v1/auth/signup')
      .send({ email: email.toUpperCase(), password: 'another password' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ detail: 'Signup received: log in with this email and password' });
    const login = await request(app).post('/api/v1/auth/login').send({ email, password: TEST_PASSWORD });
    expect(login.status).toBe(200);
  });

  it('answers 403 when signup is disabled', async () => {
    const res = await request(server({ ENABLE_SIGNUP: 'false' }))
      .post('/api/v1/auth/signup')
      .send({ email: uniqueEmail(), password: TEST_PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'Signup is disabled' });
  });

  it.each([
    ['a password under 8 characters', { email: 'a@example.com', password: 'short' }, ['body', 'password']],
    ['a password over 72 bytes', { email: 'a@example.com', password: 'é'.repeat(37) }, ['body', 'password']],
    ['an invalid email', { email: 'not-an-email', password: TEST_PASSWORD }, ['body', 'email']],
    ['a missing email', { password: TEST_PASSWORD }, ['body', 'email']],
  ])('answers 422 for %s', async (_label, body, loc) => {
    const res = await request(server()).post('/api/v1/auth/signup').send(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc })]);
  });
});

describe('login errors', () => {
  it('answers 401 with the same detail for a wrong password and an unknown email', async () => {
    const app = server();
    const { email } = await signUp(app);
    const wrongPassword = await request(app)
      .post('/api/v1/auth/login')
      .set('X-Forwarded-For', freshAddress())
      .send({ email, password: 'wrong password' });
    const unknownEmail = await request(app)
      .post('/api/v1/auth/login')
      .set('X-Forwarded-For', freshAddress())
      .send({ email: uniqueEmail(), password: TEST_PASSWORD });
    for (const res of [wrongPassword, unknownEmail]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Invalid email or password' });
    }
  });
});

describe('credential errors (401)', () => {
  const me = () => request(server()).get('/api/v1/auth/me');

  it('asks for credentials when none are sent', async () => {
    const res = await me();
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Authorization or X-API-Key header required' });
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it.each([['Basic dXNlcjpwYXNz'], ['Bearer'], ['Bearer two tokens'], ['token-without-scheme']])(
    'refuses the malformed Authorization header %j',
    async (header) => {
      const res = await me().set('Authorization', header);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Invalid authorization token' });
    },
  );

  it('refuses a bearer token that is not a valid session token', async () => {
    const res = await me().set('Authorization', 'Bearer not.a.jwt');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid or expired token' });
  });

  it('refuses an expired session token', async () => {
    const { user } = await signUp(server());
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ email: user.email })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(user.id))
      .setIssuedAt(now - 7200)
      .setExpirationTime(now - 60)
      .sign(new TextEncoder().encode(TEST_SESSION_SECRET));
    const res = await me().auth(expired, { type: 'bearer' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid or expired token' });
  });

  it('refuses a session token signed with another secret', async () => {
    const { token } = await signUp(server({ SESSION_SECRET: 'some-other-secret-of-32-characters!!' }));
    const res = await me().auth(token, { type: 'bearer' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid or expired token' });
  });

  it('refuses the token of a user that no longer exists', async () => {
    const { token, user } = await signUp(server());
    await services.db.dataSource.getRepository(User).delete({ id: user.id });
    const res = await me().auth(token, { type: 'bearer' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'User not found' });
  });

  it.each([
    ['an unknown key', `sbk_${'A'.repeat(43)}`],
    ['a malformed key', 'not-a-key'],
  ])('refuses %s', async (_label, key) => {
    const res = await me().set('X-API-Key', key);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid or expired API key' });
  });
});
