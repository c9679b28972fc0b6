import type { z } from 'zod';
import { User } from '../../entities';
import type { AuthServices } from '../auth/auth-services';
import { verifyPassword } from '../auth/passwords';
import type { ApiDeps } from '../context';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../errors';
import { defineRoute, errorResponse, type Route } from '../route';
import { createAccount } from '../services/accounts';
import { LoginRequest, SessionResponse, SignupRequest, UserResponse } from '../schemas/auth';

const userBody = (user: User): z.output<typeof UserResponse> => ({
  id: user.id,
  email: user.email,
  name: user.name,
  organization_id: user.organizationId,
});

export function createAuthRoutes({ config, dataSource }: ApiDeps, { sessions, loginThrottle }: AuthServices): Route[] {
  const users = dataSource.getRepository(User);
  const sessionBody = async (user: User): Promise<z.output<typeof SessionResponse>> => ({
    token: await sessions.issue(user),
    user: userBody(user),
  });

  return [
    defineRoute(
      {
        method: 'post',
        path: '/auth/signup',
        summary: 'Create a user and its organization',
        description: 'Answers a session token for the new user. 403 when the instance runs with `ENABLE_SIGNUP=false`.',
        tags: ['auth'],
        security: [],
        body: SignupRequest,
        responses: {
          201: { description: 'Signed up', schema: SessionResponse },
          403: errorResponse('Signup is disabled'),
          409: errorResponse('Email already registered'),
        },
      },
      async (ctx, { body }) => {
        if (!config.ENABLE_SIGNUP) throw new ForbiddenError('Signup is disabled');
        const user = await createAccount(dataSource, body);
        ctx.status = 201;
        ctx.body = await sessionBody(user);
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/auth/login',
        summary: 'Exchange email and password for a session token',
        description:
          'Failed attempts are counted per email and per client address across all replicas; past the ' +
          'limit (default 5 per email, 20 per address, in 15 minutes) the answer is 429 with `Retry-After`. ' +
          'A successful login clears the email’s count.',
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
        const user = await users.findOneBy({ email: body.email });
        const passwordMatches = await verifyPassword(body.password, user?.passwordHash);
        if (!user || !passwordMatches) throw new UnauthorizedError('Invalid email or password');
        await loginThrottle.succeeded(body.email, ctx.ip);
        ctx.body = await sessionBody(user);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/auth/me',
        summary: 'The calling user',
        tags: ['auth'],
        security: ['ApiKey', 'SessionToken'],
        responses: { 200: { description: 'The user the credentials act as', schema: UserResponse } },
      },
      async (ctx, { auth }) => {
        const user = await users.findOneBy({ id: auth.userId });
        // Authentication just found this user; it can only be gone if deleted in between.
        if (!user) throw new NotFoundError('User not found');
        ctx.body = userBody(user);
      },
    ),
  ];
}
