import { randomInt, randomUUID } from 'node:crypto';
import request from 'supertest';

/** What supertest can call: an `app.callback()`. */
export type TestServer = Parameters<typeof request>[0];

export const TEST_PASSWORD = 'correct horse battery';

export const uniqueEmail = (label = 'user'): string => `${label}-${randomUUID()}@example.com`;

export interface SignedUp {
  email: string;
  token: string;
  user: { id: number; email: string; name: string | null; organization_id: number };
}

/** Signs up a new user (and organization) through the API, then logs in as it. */
export async function signUp(server: TestServer, email = uniqueEmail()): Promise<SignedUp> {
  // From an address of its own (where the app trusts a proxy), so throttling set off by a test's
  // failed logins never holds up the accounts it creates.
  const address = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
  const signup = await request(server)
    .post('/api/v1/auth/signup')
    .set('X-Forwarded-For', address)
    .send({ email, password: TEST_PASSWORD });
  if (signup.status !== 202) throw new Error(`signup answered ${signup.status}: ${JSON.stringify(signup.body)}`);
  const res = await request(server)
    .post('/api/v1/auth/login')
    .set('X-Forwarded-For', address)
    .send({ email, password: TEST_PASSWORD });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${JSON.stringify(res.body)}`);
  const body = res.body as Omit<SignedUp, 'email'>;
  return { email, ...body };
}

export interface CreatedKey {
  id: number;
  api_key: string;
  key_prefix: string;
}

/** Creates an API key with a session token. */
export async function createApiKey(server: TestServer, token: string, name = 'test key'): Promise<CreatedKey> {
  const res = await request(server).post('/api/v1/user/api-keys').auth(token, { type: 'bearer' }).send({ name });
  if (res.status !== 201) throw new Error(`key creation answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as CreatedKey;
}
