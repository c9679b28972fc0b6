import { createHash } from 'node:crypto';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from '../../api/auth/api-key-format';

describe('API key format', () => {
  it('is sbk_ followed by 43 URL-safe characters', () => {
    const { key } = generateApiKey();
    expect(key).toMatch(/^sbk_[A-Za-z0-9_-]{43}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('has the first 8 characters as its prefix', () => {
    const { key, prefix } = generateApiKey();
    expect(prefix).toBe(key.slice(0, 8));
    expect(prefix).toMatch(/^sbk_.{4}$/);
  });

  it('is stored as the SHA-256 hex of the full key', () => {
    const { key, hash } = generateApiKey();
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toBe(hash);
    expect(hash).not.toContain(key.slice(4));
  });

  it('is random each time', () => {
    const keys = new Set(Array.from({ length: 100 }, () => generateApiKey().key));
    expect(keys.size).toBe(100);
  });

  it.each([
    ['an empty string', ''],
    ['another product prefix', `dgr_${'a'.repeat(43)}`],
    ['a short key', `sbk_${'a'.repeat(42)}`],
    ['a long key', `sbk_${'a'.repeat(44)}`],
    ['characters outside base64url', `sbk_${'a'.repeat(42)}+`],
  ])('rejects %s before any lookup', (_label, value) => {
    expect(isWellFormedApiKey(value)).toBe(false);
  });
});
