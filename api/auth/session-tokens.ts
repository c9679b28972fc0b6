import { errors, jwtVerify, SignJWT } from 'jose';

const ALGORITHM = 'HS256';

export interface SessionClaims {
  userId: number;
  /** The user's session generation when the token was issued; tokens of older ones are revoked. */
  generation: number;
}

export interface SessionTokens {
  /** A signed token naming the user and its session generation, valid for the configured lifetime. */
  issue(user: { id: number; email: string; sessionGeneration: number }): Promise<string>;
  /** What a valid, unexpired token says; `undefined` for anything else. */
  verify(token: string): Promise<SessionClaims | undefined>;
}

/** Session tokens are HS256 JWTs: `sub` (the user id), `gen`, `email`, `iat` and `exp`. */
export function createSessionTokens(secret: string, ttlHours: number): SessionTokens {
  const key = new TextEncoder().encode(secret);
  return {
    issue: (user) =>
      new SignJWT({ email: user.email, gen: user.sessionGeneration })
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
        const generation = payload.gen ?? 0;
        if (!Number.isSafeInteger(userId) || userId <= 0 || !Number.isSafeInteger(generation)) return undefined;
        return { userId, generation: generation as number };
      } catch (error) {
        if (error instanceof errors.JOSEError) return undefined;
        throw error;
      }
    },
  };
}
