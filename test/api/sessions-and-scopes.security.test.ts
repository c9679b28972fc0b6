import request from 'supertest';
import { createApiKey, signUp, TEST_PASSWORD, type TestServer } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';

const services = useTestServices();
const server = () => services.server();

const me = (app: TestServer, token: string) => request(app).get('/api/v1/auth/me').auth(token, { type: 'bearer' });
const login = (app: TestServer, email: string, password: string) =>
  request(app).post('/api/v1/auth/login').send({ email, password });

describe('sessions', () => {
  it('a password change revokes every session, a stolen one included, and answers a new one', async () => {
    const app = server();
    const { email, token: stolen } = await signUp(app);
    const current = (await login(app, email, TEST_PASSWORD)).body.token as string;

    const changed = await request(app)
      .post('/api/v1/auth/password')
      .auth(current, { type: 'bearer' })
      .send({ current_password: TEST_PASSWORD, new_password: 'a brand new passphrase' });
    expect(changed.status).toBe(200);

    for (const token of [stolen, current]) {
      const res = await me(app, token);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Session revoked' });
    }
    expect((await me(app, changed.body.token as string)).status).toBe(200);
    expect((await login(app, email, TEST_PASSWORD)).status).toBe(401);
    expect((await login(app, email, 'a brand new passphrase')).status).toBe(200);
  });

  it('refuses a password change without the current password', async () => {
    const app = server();
    const { email, token } = await signUp(app);
    const res = await request(app)
      .post('/api/v1/auth/password')
      .auth(token, { type: 'bearer' })
      .send({ current_password: 'a guess', new_password: 'taken over account' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'The current password is wrong' });
    expect((await me(app, token)).status).toBe(200);
    expect((await login(app, email, TEST_PASSWORD)).status).toBe(200);
  });

  it('logging out revokes every session of the user, and no API key can do it or change the password', async () => {
    const app = server();
    const { email, token: first } = await signUp(app);
    const second = (await login(app, email, TEST_PASSWORD)).body.token as string;
    const { api_key } = await createApiKey(app, first);

    const byKey = await request(app)
      .post('/api/v1/auth/password')
      .set('X-API-Key', api_key)
      .send({ current_password: TEST_PASSWORD, new_password: 'set with a leaked key' });
    expect(byKey.status).toBe(401);

    const loggedOut = await request(app).post('/api/v1/auth/logout').auth(second, { type: 'bearer' });
    expect(loggedOut.status).toBe(200);
    expect(loggedOut.body).toEqual({ success: true, message: 'Every session of this user is revoked' });
    for (const token of [first, second]) expect((await me(app, token)).status).toBe(401);
    // API keys are separate credentials and keep working; a new login works too.
    expect((await request(app).get('/api/v1/auth/me').set('X-API-Key', api_key)).status).toBe(200);
    expect((await me(app, (await login(app, email, TEST_PASSWORD)).body.token as string)).status).toBe(200);
  });
});

describe('API key scopes', () => {
  const keyWithScope = async (app: TestServer, token: string, scope: string) => {
    const res = await request(app)
      .post('/api/v1/user/api-keys')
      .auth(token, { type: 'bearer' })
      .send({ name: scope, scope });
    expect(res.status).toBe(201);
    expect(res.body.scope).toBe(scope);
    return res.body as { id: number; api_key: string };
  };

  it('a read-only key reads, and can neither mint keys nor change anything', async () => {
    const app = server();
    const { token } = await signUp(app);
    const { api_key } = await keyWithScope(app, token, 'read');
    expect((await request(app).get('/api/v1/auth/me').set('X-API-Key', api_key)).status).toBe(200);
    expect((await request(app).get('/api/v1/user/api-keys').set('X-API-Key', api_key)).status).toBe(200);

    const mint = await request(app)
      .post('/api/v1/user/api-keys')
      .set('X-API-Key', api_key)
      .send({ name: 'escalated', scope: 'admin' });
    expect(mint.status).toBe(403);
    expect(mint.body).toEqual({ detail: "This API key's scope is read; this route needs admin" });
    expect((await request(app).post('/api/v1/campaign/create').set('X-API-Key', api_key).send({})).status).toBe(403);
    expect((await request(app).delete('/api/v1/user/api-keys/1').set('X-API-Key', api_key)).status).toBe(403);
  });

  it('a calls key runs campaigns but cannot mint keys or archive them', async () => {
    const app = server();
    const { token } = await signUp(app);
    const admin = await keyWithScope(app, token, 'admin');
    const { api_key } = await keyWithScope(app, token, 'calls');
    // Past the scope check: the empty body is what is refused.
    expect((await request(app).post('/api/v1/campaign/create').set('X-API-Key', api_key).send({})).status).toBe(422);
    expect(
      (await request(app).post('/api/v1/user/api-keys').set('X-API-Key', api_key).send({ name: 'x' })).status,
    ).toBe(403);
    expect((await request(app).delete(`/api/v1/user/api-keys/${admin.id}`).set('X-API-Key', api_key)).status).toBe(403);
  });

  it('an admin key can archive a key, for good', async () => {
    const app = server();
    const { token } = await signUp(app);
    const admin = await keyWithScope(app, token, 'admin');
    const leaked = await keyWithScope(app, token, 'calls');
    expect(
      (await request(app).delete(`/api/v1/user/api-keys/${leaked.id}`).set('X-API-Key', admin.api_key)).status,
    ).toBe(200);
    const back = await request(app)
      .put(`/api/v1/user/api-keys/${leaked.id}/reactivate`)
      .set('X-API-Key', admin.api_key);
    expect(back.status).toBe(404);
    expect((await request(app).get('/api/v1/auth/me').set('X-API-Key', leaked.api_key)).status).toBe(401);
  });
});
