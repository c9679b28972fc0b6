import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { createApp } from '../../api/app';
import type { ApiDeps } from '../../api/context';
import { createMetrics } from '../../api/metrics';
import { parseConfig } from '../../platform/config';
import { createLogger } from '../../platform/logger';

/** Signs every test app's session tokens, so apps built in one test accept each other's tokens. */
export const TEST_SESSION_SECRET = 'test-session-secret-of-at-least-32-characters';

/**
 * bcrypt work factor of test accounts: every case signs up users, and the default (12) costs a
 * quarter of a second of CPU per hash. The tests of hashing's cost set 12 themselves.
 */
export const TEST_PASSWORD_HASH_ROUNDS = '4';

/** The real app over real dependencies, configured as a test would run it. */
export function buildTestApp(
  { dataSource, temporal }: { dataSource: DataSource; temporal: Client },
  env: Record<string, string> = {},
): { app: ReturnType<typeof createApp>; deps: ApiDeps } {
  const config = parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    SESSION_SECRET: TEST_SESSION_SECRET,
    // Every test signs its users up from one address; the signup throttle has its own tests.
    SIGNUP_MAX_PER_ADDRESS: '1000000',
    // Tests call the same numbers again and again; the frequency caps have their own tests.
    DIAL_CAP_PER_DAY: '0',
    DIAL_CAP_PER_WEEK: '0',
    // Production refuses a lower work factor: a test of production's rules keeps the default.
    ...(env.NODE_ENV === 'production' ? {} : { PASSWORD_HASH_ROUNDS: TEST_PASSWORD_HASH_ROUNDS }),
    ...env,
  });
  const deps: ApiDeps = {
    config,
    dataSource,
    temporal,
    logger: createLogger(config.LOG_LEVEL, 'api-test'),
    metrics: createMetrics(),
  };
  return { app: createApp(deps), deps };
}
