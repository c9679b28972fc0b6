import { errors, jwtVerify, SignJWT } from 'jose';

const ALGORITHM = 'HS256';

export interface SessionTokens {
  /** A signed token naming the user, valid for the configured lifetime. */
  issue(user: { id: number; email: string }): Promise<string>;
  /** The user id a valid, unexpired token names; `undefined` for anything else. */
  verify(token: string): Promise<number | undefined>;
}

/** Session tokens are HS256 JWTs: `sub` (the user id), `email`, `iat` and `exp`. */
export function createSessionTokens(secret: string, ttlHours: number): SessionTokens {
  const key = new TextEncoder().encode(secret);
  return {
    issue: (user) =>
      new SignJWT({ email: user.email })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(String(user.id))
        .setIssuedAt()
        .setExpirationTime(`${ttlHours}h`)
        .sign(key),
    async verify(token) {
      try {
        // Only HS256 is accepted: a token cannot pick its own algorithm (`none`, or a public key as HMAC).
        const { payload } = await jwtVerify(token, key, { algorithms: [ALGORITHM], requiredClaims: ['sub', 'exp'] });
        const userId = Number(payload.sub);
        return Number.isSafeInteger(userId) && userId > 0 ? userId : undefined;
      } catch (error) {
        if (error instanceof errors.JOSEError) return undefined;
        throw error;
      }
    },
  };
}
