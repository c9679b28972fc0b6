import { LoginThrottle1795000000100 } from '../../entities/migrations/1795000000100-LoginThrottle';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db.drop();
});

const tableExists = async (): Promise<boolean> => {
  const [row] = await db.dataSource.query<{ present: boolean }[]>(
    `SELECT to_regclass('login_failures') IS NOT NULL AS present`,
  );
  return row?.present ?? false;
};

it('LoginThrottle migration is reversible', async () => {
  const migration = new LoginThrottle1795000000100();
  const runner = db.dataSource.createQueryRunner();
  try {
    expect(await tableExists()).toBe(true);
    await migration.down(runner);
    expect(await tableExists()).toBe(false);
    await migration.up(runner);
    expect(await tableExists()).toBe(true);
  } finally {
    await runner.release();
  }
});
