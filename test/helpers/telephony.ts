import { randomBytes } from 'node:crypto';
import request from 'supertest';
import type { DataSource } from 'typeorm';
import type { TestServer } from './accounts';

/** A SECRETS_KEY for test apps; apps sharing it read each other's credentials. */
export const TEST_SECRETS_KEY = randomBytes(32).toString('hex');

export interface CreatedConfiguration {
  id: number;
  name: string;
  provider: string;
  is_default_outbound: boolean;
  credentials: Record<string, unknown>;
}

/** Creates a telephony configuration through the API (a simulator one unless `config` says otherwise). */
export async function createTelephonyConfig(
  server: TestServer,
  token: string,
  config: Record<string, unknown> = { provider: 'simulator' },
  name = `config-${randomBytes(4).toString('hex')}`,
): Promise<CreatedConfiguration> {
  const res = await request(server)
    .post('/api/v1/organizations/telephony-configs')
    .auth(token, { type: 'bearer' })
    .send({ name, config });
  if (res.status !== 201) throw new Error(`configuration creation answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as CreatedConfiguration;
}

/** Adds a phone number to a configuration through the API; returns the answer's body. */
export async function createPhoneNumber(
  server: TestServer,
  token: string,
  configId: number,
  body: Record<string, unknown>,
): Promise<{ id: number; address_normalized: string }> {
  const res = await request(server)
    .post(`/api/v1/organizations/telephony-configs/${configId}/phone-numbers`)
    .auth(token, { type: 'bearer' })
    .send(body);
  if (res.status !== 201) throw new Error(`phone number creation answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as { id: number; address_normalized: string };
}

/** An agent row (agent routes are another feature); returns its id. */
export async function insertAgent(dataSource: DataSource, organizationId: number, name = 'Inbound agent') {
  const [row] = await dataSource.query<{ id: number }[]>(
    `INSERT INTO agents (organization_id, workflow_uuid, name) VALUES ($1, gen_random_uuid(), $2) RETURNING id`,
    [organizationId, name],
  );
  if (!row) throw new Error('agent insert returned nothing');
  return row.id;
}
