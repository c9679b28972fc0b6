import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../platform/config';
import { maskSecret, mergeUpdate, sealCredentials } from '../../telephony/credentials';
import { loadSecrets, Secrets } from '../../telephony/secrets';

describe('Secrets', () => {
  const secrets = new Secrets(randomBytes(32));

  it('seals with a fresh IV each time and opens what it sealed', () => {
    const first = secrets.seal('auth-token-1234');
    expect(first).toMatch(/^v1\./);
    expect(first).not.toContain('auth-token');
    expect(secrets.seal('auth-token-1234')).not.toBe(first);
    expect(secrets.open(first)).toBe('auth-token-1234');
  });

  it('refuses an altered value and another key', () => {
    const sealed = secrets.seal('auth-token-1234');
    const altered = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}${sealed.slice(-1)}`;
    expect(() => secrets.open(altered)).toThrow();
    expect(() => new Secrets(randomBytes(32)).open(sealed)).toThrow();
  });
});

describe('loadSecrets', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = join(mkdtempSync(join(tmpdir(), 'secrets-key-')), 'data');
  });
  afterEach(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));

  it('uses SECRETS_KEY (hex or base64) and writes nothing', () => {
    const key = randomBytes(32);
    const sealed = loadSecrets({ SECRETS_KEY: key.toString('hex'), DATA_DIR: dataDir }).seal('x');
    expect(loadSecrets({ SECRETS_KEY: key.toString('base64'), DATA_DIR: dataDir }).open(sealed)).toBe('x');
    expect(() => statSync(dataDir)).toThrow();
  });

  it('otherwise generates a key once, owner-readable only, kept across restarts', () => {
    const sealed = loadSecrets({ DATA_DIR: dataDir }).seal('kept');
    const file = join(dataDir, 'secrets-key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^[0-9a-f]{64}$/);
    expect(loadSecrets({ DATA_DIR: dataDir }).open(sealed)).toBe('kept');
  });

  it('refuses a kept key that is not 32 bytes, naming the file but not the value', () => {
    loadSecrets({ DATA_DIR: dataDir });
    writeFileSync(join(dataDir, 'secrets-key'), 'not-a-key');
    expect(() => loadSecrets({ DATA_DIR: dataDir })).toThrow(/secrets-key does not hold 32 bytes/);
  });

  it('is required in production and validated without echoing it', () => {
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://db/x',
      TEMPORAL_ADDRESS: 'temporal:7233',
      SESSION_SECRET: 's'.repeat(40),
      PAYLOAD_ENCRYPTION_KEYS: `k1:${'cd'.repeat(32)}`,
    };
    expect(() => parseConfig(production)).toThrow(/SECRETS_KEY: required in production/);
    expect(() => parseConfig({ ...production, SECRETS_KEY: 'short-secret-value' })).toThrow(
      /SECRETS_KEY: must be 32 bytes written as hex or base64/,
    );
    expect(() => parseConfig({ ...production, SECRETS_KEY: 'short-secret-value' })).not.toThrow(/short-secret-value/);
    expect(parseConfig({ ...production, SECRETS_KEY: randomBytes(32).toString('base64') }).SECRETS_KEY).toBeDefined();
  });
});

describe('masking', () => {
  const fields = [
    { name: 'auth_token', sensitive: true },
    { name: 'application_id', sensitive: false },
  ].map((field) => ({ ...field, label: '', type: 'text' as const, description: '', placeholder: '', required: true }));

  it.each([
    ['abcdefgh', '****efgh'],
    ['abcde', '*bcde'],
    ['abcd', '****'],
    ['ab', '**'],
    ['', ''],
  ])('masks %j as %j', (secret, masked) => {
    expect(maskSecret(secret)).toBe(masked);
  });

  it('keeps a stored secret only when its exact mask comes back', () => {
    const current = { auth_token: 'abcdefgh', application_id: 'app-1' };
    const definition = { fields };
    expect(mergeUpdate(definition, current, { auth_token: '****efgh' })).toEqual(current);
    expect(mergeUpdate(definition, current, { auth_token: '*****fgh' }).auth_token).toBe('*****fgh');
    expect(mergeUpdate(definition, current, { auth_token: 'new-secret' }).auth_token).toBe('new-secret');
    expect(mergeUpdate(definition, current, { application_id: 'app-2' })).toEqual({
      auth_token: 'abcdefgh',
      application_id: 'app-2',
    });
  });

  it('encrypts only sensitive fields', () => {
    const sealed = sealCredentials(
      { fields },
      { auth_token: 'abcdefgh', application_id: 'app-1' },
      new Secrets(randomBytes(32)),
    );
    expect(sealed.application_id).toBe('app-1');
    expect(sealed.auth_token).toEqual({ enc: expect.stringMatching(/^v1\./) });
  });
});
