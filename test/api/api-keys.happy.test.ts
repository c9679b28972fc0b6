import request from 'supertest';
import { hashApiKey } from '../../api/auth/api-key-format';
import { ApiKey } from '../../entities';
import { buildTestApp } from '../helpers/app';
import { createApiKey, signUp } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';
import { waitFor } from '../helpers/wait-for';

const services = useTestServices();

const server = () =>
  buildTestApp({ dataSource: services.db.dataSource, temporal: services.temporal.client }).app.callback();

const listKeys = (app: ReturnType<typeof server>, token: string, query = '') =>
  request(app).get(`/api/v1/user/api-keys${query}`).auth(token, { type: 'bearer' });

describe('POST /api/v1/user/api-keys', () => {
  it('answers the full key once, with its 8-character prefix', async () => {
    const app = server();
    const { token } = await signUp(app);
    const res = await request(app).post('/api/v1/user/api-keys').auth(token, { type: 'bearer' }).send({ name: 'CI' });
    expect(res.status).toBe(201);
    const { api_key } = res.body as { api_key: string };
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'CI',
      scope: 'admin',
      key_prefix: api_key.slice(0, 8),
      api_key: expect.stringMatching(/^sbk_[A-Za-z0-9_-]{43}$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('stores only the SHA-256 of the key', async () => {
    const app = server();
    const { token } = await signUp(app);
    const { id, api_key } = await createApiKey(app, token);
    const [row] = await services.db.dataSource.query<Record<string, unknown>[]>(
      'SELECT * FROM api_keys WHERE id = $1',
      [id],
    );
    expect(row?.key_hash).toBe(hashApiKey(api_key));
    expect(JSON.stringify(row)).not.toContain(api_key.slice(8));
  });

  it('can be called with an API key instead of a session token', async () => {
    const app = server();
    const { token, user } = await signUp(app);
    const { api_key } = await createApiKey(app, token);
    const res = await request(app).post('/api/v1/user/api-keys').set('X-API-Key', api_key).send({ name: 'second' });
    expect(res.status).toBe(201);
    const stored = await services.db.dataSource.getRepository(ApiKey).findOneByOrFail({ id: res.body.id });
    expect(stored).toMatchObject({ userId: user.id, organizationId: user.organization_id });
  });
});

describe('GET /api/v1/user/api-keys', () => {
  it("lists the organization's keys newest first, never with the full key", async () => {
    const app = server();
    const { token } = await signUp(app);
    const older = await createApiKey(app, token, 'older');
    const newer = await createApiKey(app, token, 'newer');

    const res = await listKeys(app, token);

    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        id: newer.id,
        name: 'newer',
        scope: 'admin',
        key_prefix: newer.key_prefix,
        is_active: true,
        created_at: expect.any(String),
        last_used_at: null,
        archived_at: null,
      },
      expect.objectContaining({ id: older.id, name: 'older', key_prefix: older.api_key.slice(0, 8) }),
    ]);
    expect(res.text).not.toContain(newer.api_key);
    expect(res.text).not.toContain(older.api_key);
  });

  it('records last_used_at when a key is used, at most once a minute', async () => {
    const app = server();
    const { token } = await signUp(app);
    const { id, api_key } = await createApiKey(app, token);
    const keys = services.db.dataSource.getRepository(ApiKey);

    expect((await request(app).get('/api/v1/auth/me').set('X-API-Key', api_key)).status).toBe(200);
    const firstUse = await waitFor('last_used_at to be written', async () => {
      const key = await keys.findOneByOrFail({ id });
      return key.lastUsedAt !== null && key;
    });
    // A second use within the minute writes nothing, even from another app instance.
    expect((await request(server()).get('/api/v1/auth/me').set('X-API-Key', api_key)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await keys.findOneByOrFail({ id })).lastUsedAt).toEqual(firstUse.lastUsedAt);

    const listed = (await listKeys(app, token)).body as { id: number; last_used_at: string }[];
    expect(listed.find((key) => key.id === id)?.last_used_at).toBe(firstUse.lastUsedAt?.toISOString());
  });
});

describe('archive', () => {
  it('archives a key for good: it stops working and cannot be brought back', async () => {
    const app = server();
    const { token } = await signUp(app);
    const { id, api_key } = await createApiKey(app, token);

    const archived = await request(app).delete(`/api/v1/user/api-keys/${id}`).auth(token, { type: 'bearer' });
    expect(archived.status).toBe(200);
    expect(archived.body).toEqual({ success: true, message: 'API key archived successfully' });

    const rejected = await request(app).get('/api/v1/auth/me').set('X-API-Key', api_key);
    expect(rejected.status).toBe(401);
    expect(rejected.body).toEqual({ detail: 'Invalid or expired API key' });

    expect((await listKeys(app, token)).body).toEqual([]);
    expect((await listKeys(app, token, '?include_archived=false')).body).toEqual([]);
    const withArchived = await listKeys(app, token, '?include_archived=true');
    expect(withArchived.body).toEqual([
      expect.objectContaining({ id, is_active: false, archived_at: expect.stringMatching(/^\d{4}-/) }),
    ]);

    const reactivated = await request(app)
      .put(`/api/v1/user/api-keys/${id}/reactivate`)
      .auth(token, { type: 'bearer' });
    expect(reactivated.status).toBe(404);
    expect((await request(app).get('/api/v1/auth/me').set('X-API-Key', api_key)).status).toBe(401);
  });

  it('keeps the first archive time when a key is archived twice', async () => {
    const app = server();
    const { token } = await signUp(app);
    const { id } = await createApiKey(app, token);
    await request(app).delete(`/api/v1/user/api-keys/${id}`).auth(token, { type: 'bearer' });
    const first = (await services.db.dataSource.getRepository(ApiKey).findOneByOrFail({ id })).archivedAt;
    const again = await request(app).delete(`/api/v1/user/api-keys/${id}`).auth(token, { type: 'bearer' });
    expect(again.status).toBe(200);
    expect((await services.db.dataSource.getRepository(ApiKey).findOneByOrFail({ id })).archivedAt).toEqual(first);
  });
});
