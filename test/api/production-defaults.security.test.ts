import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { parse } from 'yaml';
import { signUp } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();

/** The API as `NODE_ENV=production` runs it, with nothing said about the simulator. */
const productionServer = () =>
  services.server({
    NODE_ENV: 'production',
    DATABASE_URL: services.db.url,
    TEMPORAL_ADDRESS: 'temporal.invalid:7233',
    SECRETS_KEY: TEST_SECRETS_KEY,
    PAYLOAD_ENCRYPTION_KEYS: `production:${TEST_SECRETS_KEY}`,
  });

describe('production defaults', () => {
  it('offers no simulator: fake calls and fake inbound rings are refused', async () => {
    const app = productionServer();
    const { token } = await signUp(app);
    const metadata = await request(app)
      .get('/api/v1/organizations/telephony-providers/metadata')
      .auth(token, { type: 'bearer' });
    expect(metadata.status).toBe(200);
    const providers = (metadata.body as { providers: { provider: string }[] }).providers.map((p) => p.provider);
    expect(providers).not.toContain('simulator');

    const created = await request(app)
      .post('/api/v1/organizations/telephony-configs')
      .auth(token, { type: 'bearer' })
      .send({ name: 'sim', config: { provider: 'simulator' } });
    expect(created.status).toBe(422);

    const ring = await request(app)
      .post('/api/v1/telephony/simulator/ring')
      .auth(token, { type: 'bearer' })
      .send({ to: '+14155550100' });
    expect(ring.status).toBe(404);
  });

  it('docker-compose.yml publishes Temporal gRPC and UI on loopback only', () => {
    const compose = parse(readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, { ports?: string[] }>;
    };
    const published = Object.entries(compose.services).flatMap(([name, service]) =>
      (service.ports ?? []).map((port) => ({ name, port: String(port) })),
    );
    expect(published.filter(({ name }) => name.startsWith('temporal')).length).toBeGreaterThan(0);
    // Only the proxy in front of the API replicas (the API authenticates every request) listens on
    // every interface; the API itself publishes no port.
    expect(published.filter(({ name }) => name === 'api')).toEqual([]);
    for (const { name, port } of published) {
      if (name !== 'proxy') expect({ name, port }).toEqual({ name, port: expect.stringMatching(/^127\.0\.0\.1:/) });
    }
  });
});
