import { ConfigError, parseConfig } from '../../platform/config';

describe('parseConfig', () => {
  it('applies the documented defaults, with embedded services when no addresses are given', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      PORT: 8000,
      PUBLIC_BASE_URL: 'http://localhost:8000',
      TELEPHONY_SIMULATOR: true,
      EMBEDDED_POSTGRES: true,
      EMBEDDED_TEMPORAL: true,
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      DATABASE_URL: 'postgres://switchboard:switchboard@127.0.0.1:54329/switchboard',
    });
  });

  it('uses given addresses and stops embedding those services', () => {
    const config = parseConfig({ DATABASE_URL: 'postgres://u:p@db:5432/x', TEMPORAL_ADDRESS: 'temporal:7233' });
    expect(config).toMatchObject({
      EMBEDDED_POSTGRES: false,
      EMBEDDED_TEMPORAL: false,
      DATABASE_URL: 'postgres://u:p@db:5432/x',
    });
  });

  it.each([
    ['false', false],
    ['0', false],
    ['no', false],
    ['true', true],
    ['1', true],
    ['yes', true],
  ])('reads the boolean %s as %s (never Boolean("false") === true)', (raw, expected) => {
    expect(parseConfig({ TELEPHONY_SIMULATOR: raw }).TELEPHONY_SIMULATOR).toBe(expected);
  });

  it('treats empty strings as unset', () => {
    expect(parseConfig({ PORT: '', TELEPHONY_SIMULATOR: '' })).toMatchObject({ PORT: 8000, TELEPHONY_SIMULATOR: true });
  });

  it('names every bad variable at once and never echoes values', () => {
    let error: unknown;
    try {
      parseConfig({ PORT: 'eighty', TELEPHONY_SIMULATOR: 'maybe', DATABASE_URL: 'not a url with secret-pw' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, message } = error as ConfigError;
    expect(problems.map((p) => p.split(':')[0])).toEqual(['PORT', 'DATABASE_URL', 'TELEPHONY_SIMULATOR']);
    expect(message).not.toContain('secret-pw');
  });

  it('bounds calls in flight per campaign and organization, and the worker cache, within their ranges', () => {
    expect(parseConfig({})).toMatchObject({ CAMPAIGN_MAX_CONCURRENCY: 100, ORG_MAX_CALLS_IN_FLIGHT: 1000 });
    expect(parseConfig({}).WORKER_MAX_CACHED_WORKFLOWS).toBeUndefined();
    expect(
      parseConfig({
        CAMPAIGN_MAX_CONCURRENCY: '20',
        ORG_MAX_CALLS_IN_FLIGHT: '5000',
        WORKER_MAX_CACHED_WORKFLOWS: '0',
      }),
    ).toMatchObject({ CAMPAIGN_MAX_CONCURRENCY: 20, ORG_MAX_CALLS_IN_FLIGHT: 5000, WORKER_MAX_CACHED_WORKFLOWS: 0 });
    let error: unknown;
    try {
      // Past the API's own bound of 100, no calls at all, a negative cache.
      parseConfig({ CAMPAIGN_MAX_CONCURRENCY: '101', ORG_MAX_CALLS_IN_FLIGHT: '0', WORKER_MAX_CACHED_WORKFLOWS: '-1' });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).problems.map((p) => p.split(':')[0])).toEqual([
      'WORKER_MAX_CACHED_WORKFLOWS',
      'CAMPAIGN_MAX_CONCURRENCY',
      'ORG_MAX_CALLS_IN_FLIGHT',
    ]);
  });

  it('requires external PostgreSQL and Temporal in production', () => {
    expect(() => parseConfig({ NODE_ENV: 'production' })).toThrow(/DATABASE_URL: required in production/);
    expect(() => parseConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x' })).toThrow(
      /TEMPORAL_ADDRESS: required in production/,
    );
  });

  it('hashes passwords with 2^12 bcrypt rounds unless told otherwise, and never fewer in production', () => {
    expect(parseConfig({}).PASSWORD_HASH_ROUNDS).toBe(12);
    expect(parseConfig({ NODE_ENV: 'test', PASSWORD_HASH_ROUNDS: '4' }).PASSWORD_HASH_ROUNDS).toBe(4);
    expect(() => parseConfig({ PASSWORD_HASH_ROUNDS: '3' })).toThrow(/PASSWORD_HASH_ROUNDS/);
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/x',
      TEMPORAL_ADDRESS: 'temporal:7233',
      SESSION_SECRET: 'a session secret of at least 32 characters',
      SECRETS_KEY: 'a'.repeat(64),
      PAYLOAD_ENCRYPTION_KEYS: `k1:${'b'.repeat(64)}`,
    };
    expect(parseConfig(production).PASSWORD_HASH_ROUNDS).toBe(12);
    expect(() => parseConfig({ ...production, PASSWORD_HASH_ROUNDS: '11' })).toThrow(
      /PASSWORD_HASH_ROUNDS: at least 12 in production/,
    );
  });
});

describe('recording storage settings', () => {
  it('keeps recordings on local disk by default, with S3 defaults ready for a bucket', () => {
    const config = parseConfig({ DATA_DIR: '/var/lib/sb' });
    expect(config).toMatchObject({
      RECORDINGS_DIR: '/var/lib/sb/recordings',
      RECORDINGS_S3_PREFIX: 'recordings/',
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: false,
    });
    for (const unset of ['RECORDINGS_S3_BUCKET', 'S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const)
      expect(config[unset]).toBeUndefined();
  });

  it('reads an S3-compatible server with its keys and path-style URLs', () => {
    const config = parseConfig({
      RECORDINGS_S3_BUCKET: 'call-recordings',
      RECORDINGS_S3_PREFIX: 'prod/calls/',
      S3_ENDPOINT: 'http://minio:9000',
      S3_REGION: 'eu-west-3',
      S3_ACCESS_KEY_ID: 'minioadmin',
      S3_SECRET_ACCESS_KEY: 'minio-secret',
      S3_FORCE_PATH_STYLE: 'yes',
    });
    expect(config).toMatchObject({
      RECORDINGS_S3_BUCKET: 'call-recordings',
      RECORDINGS_S3_PREFIX: 'prod/calls/',
      S3_ENDPOINT: 'http://minio:9000',
      S3_REGION: 'eu-west-3',
      S3_ACCESS_KEY_ID: 'minioadmin',
      S3_SECRET_ACCESS_KEY: 'minio-secret',
      S3_FORCE_PATH_STYLE: true,
    });
  });

  it('refuses a bad bucket, prefix, endpoint or path-style flag, naming each and echoing no value', () => {
    let error: unknown;
    try {
      parseConfig({
        RECORDINGS_S3_BUCKET: 'my bucket/x',
        RECORDINGS_S3_PREFIX: '/recordings/',
        S3_ENDPOINT: 'ftp://files.example',
        S3_FORCE_PATH_STYLE: 'sometimes',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, message } = error as ConfigError;
    expect(problems.map((p) => p.split(':')[0])).toEqual([
      'RECORDINGS_S3_BUCKET',
      'RECORDINGS_S3_PREFIX',
      'S3_ENDPOINT',
      'S3_FORCE_PATH_STYLE',
    ]);
    expect(message).not.toContain('my bucket');
    expect(message).not.toContain('files.example');
  });

  it('takes the access key and its secret together or not at all (then the SDK default chain)', () => {
    expect(() => parseConfig({ S3_ACCESS_KEY_ID: 'AKIA0000' })).toThrow(
      'S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both or neither',
    );
    expect(() => parseConfig({ S3_SECRET_ACCESS_KEY: 'only-the-secret' })).toThrow(/set both or neither/);
    // Empty values are unset, as in most .env files.
    expect(parseConfig({ S3_ACCESS_KEY_ID: '', S3_SECRET_ACCESS_KEY: '' }).S3_ACCESS_KEY_ID).toBeUndefined();
  });
});
