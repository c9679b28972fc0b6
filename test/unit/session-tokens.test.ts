import { SignJWT, UnsecuredJWT } from 'jose';
import { createSessionTokens } from '../../api/auth/session-tokens';

const SECRET = 'unit-test-session-secret-with-32-chars';
const key = new TextEncoder().encode(SECRET);

describe('session tokens', () => {
  const tokens = createSessionTokens(SECRET, 720);

  it('round-trips the user id and session generation, with a 720 h lifetime by default', async () => {
    const token = await tokens.issue({ id: 42, email: 'ada@example.com', sessionGeneration: 3 });
    expect(await tokens.verify(token)).toEqual({ userId: 42, generation: 3 });
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(claims).toMatchObject({ sub: '42', email: 'ada@example.com', gen: 3 });
    expect(Number(claims.exp) - Number(claims.iat)).toBe(720 * 3600);
  });

  it('rejects a token signed with another secret', async () => {
    const other = createSessionTokens('another-secret-that-is-32-chars-long!', 720);
    expect(await tokens.verify(await other.issue({ id: 42, email: 'a@b.c', sessionGeneration: 0 }))).toBeUndefined();
  });

  it('rejects an expired token', async () => {
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('42')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(key);
    expect(await tokens.verify(expired)).toBeUndefined();
  });

  it('rejects an unsigned (alg none) token and one without expiry', async () => {
    const unsigned = new UnsecuredJWT({}).setSubject('42').setExpirationTime('1h').encode();
    expect(await tokens.verify(unsigned)).toBeUndefined();
    const endless = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('42').sign(key);
    expect(await tokens.verify(endless)).toBeUndefined();
  });

  it.each([['not-a-number'], ['0'], ['-1'], ['1.5']])('rejects the subject %s', async (sub) => {
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(sub)
      .setExpirationTime('1h')
      .sign(key);
    expect(await tokens.verify(token)).toBeUndefined();
  });

  it('rejects garbage', async () => {
    expect(await tokens.verify('garbage')).toBeUndefined();
  });
});
