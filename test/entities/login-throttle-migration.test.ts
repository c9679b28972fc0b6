import { LoginThrottle1795000000100 } from '../../entities/migrations/1795000000100-LoginThrottle';
import { AuthThrottleBackoff1795000002100 } from '../../entities/migrations/1795000002100-AuthThrottleBackoff';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db.drop();
});

const tableExists = async (table: string): Promise<boolean> => {
  const [row] = await db.dataSource.query<{ present: boolean }[]>(`SELECT to_regclass($1) IS NOT NULL AS present`, [
    table,
  ]);
  return row?.present ?? false;
};

it('the login throttle migrations are reversible', async () => {
  const runner = db.dataSource.createQueryRunner();
  try {
    expect(await tableExists('auth_throttle')).toBe(true);
    await new AuthThrottleBackoff1795000002100().down(runner);
    expect([await tableExists('auth_throttle'), await tableExists('login_failures')]).toEqual([false, true]);
    await new LoginThrottle1795000000100().down(runner);
    expect(await tableExists('login_failures')).toBe(false);
    await new LoginThrottle1795000000100().up(runner);
    await new AuthThrottleBackoff1795000002100().up(runner);
    expect([await tableExists('auth_throttle'), await tableExists('login_failures')]).toEqual([true, false]);
  } finally {
    await runner.release();
  }
});
