import request from 'supertest';
import { Organization, User } from '../../entities';
import { createApiKey, signUp, TEST_PASSWORD } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

const server = (env: Record<string, string> = {}) => services.server(env);

describe('POST /api/v1/auth/signup', () => {
  it('creates a user and its organization, which then logs in', async () => {
    // PASSWORD_HASH_ROUNDS unset (an empty value is unset), as in production: the default work factor.
    const app = server({ PASSWORD_HASH_ROUNDS: '' });
    const res = await request(app)
      .post('/api/v1/auth/signup')
      .send({ email: 'Ada.Lovelace@Example.COM', password: TEST_PASSWORD, name: 'Ada' });

    expect(res.status).toBe(202);
    expect(res.body).toEqual({ detail: 'Signup received: log in with this email and password' });
    const login = await request(app)
      .post('/api/v1/auth/login')
      .send({ email: 'ada.lovelace@example.com', password: TEST_PASSWORD });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      user: {
        id: expect.any(Number),
        email: 'ada.lovelace@example.com',
        name: 'Ada',
        organization_id: expect.any(Number),
      },
    });
    const user = await services.db.dataSource.getRepository(User).findOneByOrFail({ id: login.body.user.id });
    expect(user.email).toBe('ada.lovelace@example.com');
    expect(user.passwordHash).toMatch(/^\$2[aby]\$12\$/);
    expect(user.passwordHash).not.toContain(TEST_PASSWORD);
    const organization = await services.db.dataSource
      .getRepository(Organization)
      .findOneByOrFail({ id: user.organizationId });
    expect(organization.name).toBe('Ada');
  });

  it('takes name as optional', async () => {
    const { user } = await signUp(server());
    expect(user.name).toBeNull();
  });

  it('gives every signup its own organization', async () => {
    const app = server();
    const [a, b] = await Promise.all([signUp(app), signUp(app)]);
    expect(a.user.organization_id).not.toBe(b.user.organization_id);
  });
});

describe('POST /api/v1/auth/login', () => {
  it('answers a session token and the user, whatever the email case', async () => {
    const app = server();
    const { email, user } = await signUp(app);
    const res = await request(app)
      .post('/api/v1/auth/login')
      .send({ email: email.toUpperCase(), password: TEST_PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ token: expect.any(String), user });
  });
});

describe('GET /api/v1/auth/me', () => {
  it('answers the user of a session token', async () => {
    const app = server();
    const { token, user } = await signUp(app);
    const res = await request(app).get('/api/v1/auth/me').auth(token, { type: 'bearer' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(user);
  });

  it('answers the creator of an API key', async () => {
    const app = server();
    const { token, user } = await signUp(app);
    const { api_key } = await createApiKey(app, token);
    const res = await request(app).get('/api/v1/auth/me').set('X-API-Key', api_key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(user);
  });

  it('accepts a login token and tokens from another app instance with the same secret', async () => {
    const { email, user } = await signUp(server());
    const login = await request(server()).post('/api/v1/auth/login').send({ email, password: TEST_PASSWORD });
    const res = await request(server()).get('/api/v1/auth/me').set('Authorization', `Bearer ${login.body.token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(user);
  });
});
