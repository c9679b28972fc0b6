import type { z } from 'zod';
import type { User } from '../../entities';
import type { AuthServices } from '../auth/auth-services';
import { verifyPassword } from '../../domain/accounts/passwords';
import { Users } from '../../domain/accounts/users';
import type { ApiDeps } from '../context';
import { ForbiddenError, UnauthorizedError } from '../errors';
import { ConflictError } from '../../domain/errors';
import { defineRoute, errorResponse, type Route } from '../route';
import { createAccount } from '../../domain/accounts/accounts';
import { ChangePasswordRequest, SignupAccepted, SIGNUP_RECEIVED } from '../schemas/account';
import { LoginRequest, SessionResponse, SignupRequest, UserResponse } from '../schemas/auth';
import { SuccessResponse } from '../schemas/common';

const userBody = (user: User): z.output<typeof UserResponse> => ({
  id: user.id,
  email: user.email,
  name: user.name,
  organization_id: user.organizationId,
});

export function createAuthRoutes(
  { config, dataSource }: ApiDeps,
  { sessions, loginThrottle, signupThrottle }: AuthServices,
): Route[] {
  const users = new Users(dataSource, config.PASSWORD_HASH_ROUNDS);
  const sessionBody = async (user: User): Promise<z.output<typeof SessionResponse>> => ({
    token: await sessions.issue(user),
    user: userBody(user),
  });

  return [
    defineRoute(
      {
        method: 'post',
        path: '/auth/signup',
        operationId: 'signUp',
        summary: 'Create a user and its organization',
        description:
          'Answers 202 with the same body whether or not the email was already registered, in about the same ' +
          'time, so signup cannot be used to find accounts; then log in with `POST /auth/login`. Signups are ' +
          'counted per client address: past `SIGNUP_MAX_PER_ADDRESS` each next one waits (429 with ' +
          '`Retry-After`). 403 when the instance runs with `ENABLE_SIGNUP=false`.',
        tags: ['auth'],
        security: [],
        body: SignupRequest,
        responses: {
          202: { description: 'Signup received', schema: SignupAccepted },
          403: errorResponse('Signup is disabled'),
          429: errorResponse('Too many signups from this address; `Retry-After` says when to try again'),
        },
      },
      async (ctx, { body }) => {
        if (!config.ENABLE_SIGNUP) throw new ForbiddenError('Signup is disabled');
        await signupThrottle.begin(ctx.ip);
        try {
          await createAccount(dataSource, body, config.PASSWORD_HASH_ROUNDS);
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error;
        }
        ctx.status = 202;
        ctx.body = { detail: SIGNUP_RECEIVED };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/auth/login',
        operationId: 'logIn',
        summary: 'Exchange email and password for a session token',
        description:
          'Failed attempts are counted per email and per client address (an IPv6 client by its /64) across all ' +
          'replicas, from the moment they arrive, before the password is checked: a parallel burst is counted ' +
          'as it comes. Past a free allowance (`LOGIN_MAX_FAILURES_PER_EMAIL`, `LOGIN_MAX_FAILURES_PER_ADDRESS`) ' +
          'each next attempt waits 5 s, doubling up to `LOGIN_MAX_BACKOFF_SECONDS` (30 s): meanwhile the answer ' +
          'is 429 with `Retry-After`. A successful login clears the email’s count and takes its own attempt off ' +
          'the address’s, whose earlier failures stay. Unknown emails and wrong passwords answer alike.',
        tags: ['auth'],
        security: [],
        body: LoginRequest,
        responses: {
          200: { description: 'Logged in', schema: SessionResponse },
          401: errorResponse('Invalid email or password'),
          429: errorResponse('Too many failed attempts; `Retry-After` says when to try again'),
        },
      },
      async (ctx, { body }) => {
        await loginThrottle.begin(body.email, ctx.ip);
        const user = await users.findByEmail(body.email);
        const passwordMatches = await verifyPassword(body.password, user?.passwordHash, config.PASSWORD_HASH_ROUNDS);
        if (!user || !passwordMatches) throw new UnauthorizedError('Invalid email or password');
        await loginThrottle.succeeded(body.email, ctx.ip);
        ctx.body = await sessionBody(user);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/auth/me',
        operationId: 'getCurrentUser',
        summary: 'The calling user',
        description:
          'The user behind the session token or API key of the request, with the organization it belongs to.',
        tags: ['auth'],
        security: ['ApiKey', 'SessionToken'],
        responses: {
          200: { description: 'The user the credentials act as', schema: UserResponse },
          404: errorResponse('User not found: deleted after the credentials were checked'),
        },
      },
      async (ctx, { auth }) => {
        // Authentication just found this user; it can only be gone if deleted in between.
        ctx.body = userBody(await users.find(auth.userId));
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/auth/logout',
        operationId: 'logOut',
        summary: 'Revoke every session token of the calling user',
        description:
          'Every session token the user holds, on any device, stops working at once, this one included. ' +
          'API keys are not affected: archive them with `DELETE /user/api-keys/{id}`.',
        tags: ['auth'],
        security: ['SessionToken'],
        responses: { 200: { description: 'Revoked', schema: SuccessResponse } },
      },
      async (ctx, { auth }) => {
        await users.revokeSessions(auth.userId);
        ctx.body = { success: true, message: 'Every session of this user is revoked' };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/auth/password',
        operationId: 'changePassword',
        summary: "Change the calling user's password",
        description:
          'Needs the current password, checked and throttled as a login is. Every session token of the user ' +
          'is revoked; the answer carries a new one for this client.',
        tags: ['auth'],
        security: ['SessionToken'],
        body: ChangePasswordRequest,
        responses: {
          200: { description: 'Changed; a new session token', schema: SessionResponse },
          403: errorResponse('The current password is wrong'),
          404: errorResponse('User not found: deleted after the credentials were checked'),
          429: errorResponse('Too many failed attempts; `Retry-After` says when to try again'),
        },
      },
      async (ctx, { body, auth }) => {
        const user = await users.find(auth.userId);
        await loginThrottle.begin(user.email, ctx.ip);
        if (!(await verifyPassword(body.current_password, user.passwordHash, config.PASSWORD_HASH_ROUNDS))) {
          throw new ForbiddenError('The current password is wrong');
        }
        await loginThrottle.succeeded(user.email, ctx.ip);
        ctx.body = await sessionBody(await users.changePassword(user.id, body.new_password));
      },
    ),
  ];
}
