import type { Middleware } from 'koa';
import type { CredentialVerifier } from '../auth/credentials';
import type { AppState } from '../context';
import { scopeAllows, type ApiKeyScope } from '../auth/scopes';
import { ForbiddenError, UnauthorizedError } from '../errors';
import type { SecurityScheme } from '../route';

const BEARER = /^Bearer +(\S+)$/i;

const missingCredentials = (accepted: readonly SecurityScheme[]): string => {
  const headers = [
    ...(accepted.includes('SessionToken') ? ['Authorization'] : []),
    ...(accepted.includes('ApiKey') ? ['X-API-Key'] : []),
  ];
  return `${headers.join(' or ')} header required`;
};

/**
 * Runs before every route that declares credentials and puts the caller on `ctx.state.auth`.
 * An `X-API-Key` wins over `Authorization` when both are sent, and a bad key is not retried as a
 * token: the request is judged on the credential that takes precedence. A credential whose scope
 * does not cover the route's answers 403.
 */
export function authenticate(
  verifier: CredentialVerifier,
  accepted: readonly SecurityScheme[],
  scope: ApiKeyScope,
): Middleware<AppState> {
  return async (ctx, next) => {
    const apiKey = ctx.get('X-API-Key').trim();
    const authorization = ctx.get('Authorization').trim();
    if (apiKey && accepted.includes('ApiKey')) {
      ctx.state.auth = await verifier.byApiKey(apiKey);
    } else if (authorization && accepted.includes('SessionToken')) {
      const token = BEARER.exec(authorization)?.[1];
      if (!token) throw new UnauthorizedError('Invalid authorization token');
      ctx.state.auth = await verifier.bySessionToken(token);
    } else {
      throw new UnauthorizedError(missingCredentials(accepted));
    }
    if (!scopeAllows(ctx.state.auth.scope, scope)) {
      throw new ForbiddenError(`This API key's scope is ${ctx.state.auth.scope}; this route needs ${scope}`);
    }
    await next();
  };
}
