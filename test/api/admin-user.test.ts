import request from 'supertest';
import { ensureAdminUser } from '../../domain/accounts/admin-user';
import { Organization, User } from '../../entities';
import { buildTestApp, TEST_PASSWORD_HASH_ROUNDS } from '../helpers/app';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

describe('ensureAdminUser', () => {
  const hashRounds = { PASSWORD_HASH_ROUNDS: Number(TEST_PASSWORD_HASH_ROUNDS) };
  const admin = { ADMIN_EMAIL: 'Admin@Example.com', ADMIN_PASSWORD: 'first-run password', ...hashRounds };

  it('does nothing without ADMIN_EMAIL', async () => {
    expect(await ensureAdminUser(services.db.dataSource, hashRounds)).toBe(false);
    expect(await services.db.dataSource.getRepository(User).count()).toBe(0);
  });

  it('creates the admin and its organization once, however often it runs', async () => {
    const results = await Promise.all([
      ensureAdminUser(services.db.dataSource, admin),
      ensureAdminUser(services.db.dataSource, admin),
    ]);
    expect(results.sort()).toEqual([false, true]);
    expect(await ensureAdminUser(services.db.dataSource, { ...admin, ADMIN_PASSWORD: 'another password' })).toBe(false);

    expect(await services.db.dataSource.getRepository(User).countBy({ email: 'admin@example.com' })).toBe(1);
    expect(await services.db.dataSource.getRepository(Organization).count()).toBe(1);

    // The first password stands: a restart with another one does not reset it.
    const { app } = buildTestApp(
      { dataSource: services.db.dataSource, temporal: services.temporal.client },
      { ENABLE_SIGNUP: 'false' },
    );
    const login = await request(app.callback())
      .post('/api/v1/auth/login')
      .send({ email: 'admin@example.com', password: 'first-run password' });
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ email: 'admin@example.com', name: 'Administrator' });
  });
});
