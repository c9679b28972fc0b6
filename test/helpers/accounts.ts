import { randomUUID } from 'node:crypto';
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

/** Signs up a new user (and organization) through the API. */
export async function signUp(server: TestServer, email = uniqueEmail()): Promise<SignedUp> {
  const res = await request(server).post('/api/v1/auth/signup').send({ email, password: TEST_PASSWORD });
  if (res.status !== 201) throw new Error(`signup answered ${res.status}: ${JSON.stringify(res.body)}`);
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
