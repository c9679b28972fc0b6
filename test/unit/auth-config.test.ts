import { ConfigError, parseConfig } from '../../platform/config';

const production = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://db/x',
  TEMPORAL_ADDRESS: 'temporal:7233',
  SECRETS_KEY: 'ab'.repeat(32),
  PAYLOAD_ENCRYPTION_KEYS: `k1:${'cd'.repeat(32)}`,
};

describe('auth configuration', () => {
  it('has the documented defaults', () => {
    expect(parseConfig({})).toMatchObject({
      ENABLE_SIGNUP: true,
      SESSION_TTL_HOURS: 720,
      LOGIN_MAX_FAILURES_PER_EMAIL: 5,
      LOGIN_MAX_FAILURES_PER_ADDRESS: 20,
      LOGIN_FAILURE_WINDOW_MINUTES: 15,
    });
  });

  it('reads ENABLE_SIGNUP as an explicit boolean', () => {
    expect(parseConfig({ ENABLE_SIGNUP: 'false' }).ENABLE_SIGNUP).toBe(false);
    expect(() => parseConfig({ ENABLE_SIGNUP: 'nope' })).toThrow(ConfigError);
  });

  it('requires SESSION_SECRET in production', () => {
    expect(() => parseConfig(production)).toThrow(/SESSION_SECRET: required in production/);
    expect(parseConfig({ ...production, SESSION_SECRET: 'x'.repeat(32) }).SESSION_SECRET).toBe('x'.repeat(32));
  });

  it('refuses a short SESSION_SECRET without echoing it', () => {
    expect(() => parseConfig({ SESSION_SECRET: 'short-secret' })).toThrow(/SESSION_SECRET: must be at least 32/);
    expect(() => parseConfig({ SESSION_SECRET: 'short-secret' })).not.toThrow(/short-secret/);
  });

  it('takes ADMIN_EMAIL and ADMIN_PASSWORD together or not at all', () => {
    expect(() => parseConfig({ ADMIN_EMAIL: 'admin@example.com' })).toThrow(/set both or neither/);
    expect(() => parseConfig({ ADMIN_PASSWORD: 'long enough' })).toThrow(/set both or neither/);
    expect(parseConfig({ ADMIN_EMAIL: 'admin@example.com', ADMIN_PASSWORD: 'long enough' })).toMatchObject({
      ADMIN_EMAIL: 'admin@example.com',
    });
  });
});
