import request from 'supertest';
import { TelephonyConfiguration } from '../../entities';
import { openCredentials } from '../../telephony/credentials';
import { Secrets } from '../../telephony/secrets';
import { insertCampaign } from '../helpers/agents';
import { signUp, type TestServer } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';
import { createTelephonyConfig, insertAgent, TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const server = (env: Record<string, string> = {}) => services.server({ SECRETS_KEY: TEST_SECRETS_KEY, ...env });
const BASE = '/api/v1/organizations/telephony-configs';
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));

const twilio = {
  provider: 'twilio',
  account_sid: 'AC0123456789abcdef0123456789abcdef',
  auth_token: 'secret-token-9876',
};
const rawRow = async (id: number) => {
  const [row] = await services.db.dataSource.query<{ credentials: Record<string, unknown> }[]>(
    'SELECT credentials FROM telephony_configurations WHERE id = $1',
    [id],
  );
  return row;
};

let app: TestServer;
let token: string;
beforeAll(async () => {
  app = server();
  ({ token } = await signUp(app));
});
const as = (method: 'get' | 'post' | 'put' | 'delete', path: string) =>
  request(app)[method](path).auth(token, { type: 'bearer' });

describe('GET /organizations/telephony-providers/metadata', () => {
  type Metadata = { providers: { provider: string; fields: { name: string; sensitive: boolean }[] }[] };

  it('lists every provider, sorted, with its field descriptors', async () => {
    const res = await as('get', '/api/v1/organizations/telephony-providers/metadata');
    expect(res.status).toBe(200);
    const { providers } = res.body as Metadata;
    expect(providers.map((provider) => provider.provider)).toEqual([
      'ari',
      'cloudonix',
      'plivo',
      'simulator',
      'telnyx',
      'twilio',
      'vobiz',
      'vonage',
    ]);
    expect(providers.find((provider) => provider.provider === 'twilio')).toMatchObject({
      display_name: 'Twilio',
      docs_url: expect.stringMatching(/^https:\/\//),
      fields: expect.arrayContaining([
        {
          name: 'auth_token',
          label: 'Auth Token',
          type: 'password',
          description: expect.any(String),
          placeholder: expect.any(String),
          required: true,
          sensitive: true,
        },
      ]),
    });
  });

  it('leaves the simulator out when TELEPHONY_SIMULATOR=false, and refuses to create one', async () => {
    const withoutSimulator = server({ TELEPHONY_SIMULATOR: 'false' });
    const res = await request(withoutSimulator)
      .get('/api/v1/organizations/telephony-providers/metadata')
      .auth(token, { type: 'bearer' });
    expect((res.body as Metadata).providers.map((provider) => provider.provider)).not.toContain('simulator');
    const created = await request(withoutSimulator)
      .post(BASE)
      .auth(token, { type: 'bearer' })
      .send({ name: 'sim', config: { provider: 'simulator' } });
    expect(created.status).toBe(422);
    expect(created.body.detail[0].loc).toEqual(['body', 'config', 'provider']);
  });
});

describe('create, read, list', () => {
  it('creates a configuration, answers it masked and stores the secrets encrypted', async () => {
    const res = await as('post', BASE).send({ name: 'Main Twilio', config: twilio });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'Main Twilio',
      provider: 'twilio',
      is_default_outbound: false,
      calls_per_second: null,
      effective_calls_per_second: 1,
      credentials: {
        account_sid: `${'*'.repeat(30)}cdef`,
        auth_token: `${'*'.repeat(13)}9876`,
        amd_enabled: false,
      },
      created_at: expect.stringMatching(/^\d{4}-/),
      updated_at: expect.stringMatching(/^\d{4}-/),
    });

    const row = await rawRow(res.body.id);
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(twilio.auth_token);
    expect(stored).not.toContain(twilio.account_sid);
    expect(row?.credentials.auth_token).toEqual({ enc: expect.stringMatching(/^v1\./) });
    expect(row?.credentials.amd_enabled).toBe(false);

    const read = await as('get', `${BASE}/${res.body.id}`);
    expect(read.body).toEqual(res.body);
    const list = await as('get', BASE);
    expect(list.body.configurations).toContainEqual(res.body);
  });

  it('applies the simulator defaults', async () => {
    const created = await createTelephonyConfig(app, token);
    expect(created.credentials).toEqual({ ring_seconds: 1, talk_seconds: 3, audio: false });
  });

  it('masks secrets of four characters or fewer whole', async () => {
    const created = await createTelephonyConfig(app, token, { provider: 'plivo', auth_id: 'ABCD', auth_token: 'xyz' });
    expect(created.credentials).toEqual({ auth_id: '****', auth_token: '***' });
  });
});

describe('PUT: masking round-trip and partial updates', () => {
  it('keeps the stored secret when the masked value comes back, and replaces it when it changes', async () => {
    const created = await createTelephonyConfig(app, token, twilio);

    const unchanged = await as('put', `${BASE}/${created.id}`).send({
      name: created.name,
      config: { provider: 'twilio', ...created.credentials },
    });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body.credentials).toEqual(created.credentials);
    const row = await services.db.dataSource.getRepository(TelephonyConfiguration).findOneByOrFail({ id: created.id });
    expect(openCredentials(row.credentials, secrets)).toEqual({
      account_sid: twilio.account_sid,
      auth_token: twilio.auth_token,
      amd_enabled: false,
    });

    const changed = await as('put', `${BASE}/${created.id}`).send({
      config: { provider: 'twilio', auth_token: 'a-brand-new-token-4321' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.credentials).toEqual({ ...created.credentials, auth_token: `${'*'.repeat(18)}4321` });

    // Another run of asterisks is a new value, not "keep".
    const stars = await as('put', `${BASE}/${created.id}`).send({
      config: { provider: 'twilio', auth_token: '*'.repeat(22) },
    });
    expect(stars.body.credentials.auth_token).toBe('*'.repeat(22));
  });

  it('renames without touching the credentials', async () => {
    const created = await createTelephonyConfig(app, token, twilio);
    const res = await as('put', `${BASE}/${created.id}`).send({ name: 'Renamed' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Renamed', credentials: created.credentials });
  });

  it('refuses to change the provider', async () => {
    const created = await createTelephonyConfig(app, token, twilio);
    const res = await as('put', `${BASE}/${created.id}`).send({
      config: { provider: 'plivo', auth_id: 'MAID', auth_token: 'token' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Provider cannot be changed; create a new configuration instead.' });
  });

  it("mints an ARI configuration's stasis_app_name on create and keeps it through updates", async () => {
    const ari = {
      provider: 'ari',
      ari_endpoint: 'http://pbx.example.com:8088',
      app_name: 'sb',
      app_password: 'pw-12345',
    };
    const created = await createTelephonyConfig(app, token, { ...ari, stasis_app_name: 'chosen_by_client' });
    const minted = created.credentials.stasis_app_name;
    expect(minted).toMatch(/^switchboard_[0-9a-f]{12}$/);
    const res = await as('put', `${BASE}/${created.id}`).send({
      config: { provider: 'ari', app_name: 'renamed', stasis_app_name: 'another_choice' },
    });
    expect(res.status).toBe(200);
    expect(res.body.credentials).toMatchObject({ app_name: 'renamed', stasis_app_name: minted });
  });

  it('validates the merged fields against the provider schema', async () => {
    const created = await createTelephonyConfig(app, token);
    const res = await as('put', `${BASE}/${created.id}`).send({
      config: { provider: 'simulator', ring_seconds: 'soon' },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'config', 'ring_seconds'] })]);
  });
});

describe('bad input writes nothing', () => {
  const count = async () =>
    Number((await services.db.dataSource.query('SELECT count(*) FROM telephony_configurations'))[0].count);

  it.each([
    ['an unknown provider', { name: 'x', config: { provider: 'acme' } }, ['body', 'config', 'provider']],
    [
      'a missing required field',
      { name: 'x', config: { provider: 'twilio', account_sid: 'AC1' } },
      ['body', 'config', 'auth_token'],
    ],
    ['a 10 KB name', { name: 'n'.repeat(10_240), config: { provider: 'simulator' } }, ['body', 'name']],
    ['an empty name', { name: '  ', config: { provider: 'simulator' } }, ['body', 'name']],
    ['no config', { name: 'x' }, ['body', 'config']],
  ])('422 for %s', async (_case, body, loc) => {
    const before = await count();
    const res = await as('post', BASE).send(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toContainEqual(expect.objectContaining({ loc, msg: expect.any(String) }));
    expect(await count()).toBe(before);
  });

  it('409 for a duplicate name in the organization', async () => {
    await createTelephonyConfig(app, token, undefined, 'Taken');
    const res = await as('post', BASE).send({ name: 'Taken', config: { provider: 'simulator' } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      detail: "A telephony configuration named 'Taken' already exists in this organization. Pick a different name.",
    });
    const other = await createTelephonyConfig(app, token, undefined, 'Free');
    const renamed = await as('put', `${BASE}/${other.id}`).send({ name: 'Taken' });
    expect(renamed.status).toBe(409);
  });

  it('allows the same name in another organization', async () => {
    const other = await signUp(app);
    await createTelephonyConfig(app, token, undefined, 'Shared name');
    await expect(createTelephonyConfig(app, other.token, undefined, 'Shared name')).resolves.toMatchObject({
      name: 'Shared name',
    });
  });
});

describe('default outbound', () => {
  it('keeps one default per organization, switching in one step', async () => {
    const owner = await signUp(app);
    const first = await request(app)
      .post(BASE)
      .auth(owner.token, { type: 'bearer' })
      .send({ name: 'first', is_default_outbound: true, config: { provider: 'simulator' } });
    expect(first.body.is_default_outbound).toBe(true);
    const second = await createTelephonyConfig(app, owner.token);

    const res = await request(app)
      .post(`${BASE}/${second.id}/set-default-outbound`)
      .auth(owner.token, { type: 'bearer' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: second.id, is_default_outbound: true });

    const list = await request(app).get(BASE).auth(owner.token, { type: 'bearer' });
    const { configurations } = list.body as { configurations: { id: number; is_default_outbound: boolean }[] };
    expect(configurations.map((c) => [c.id, c.is_default_outbound])).toEqual([
      [first.body.id, false],
      [second.id, true],
    ]);

    const third = await request(app)
      .post(BASE)
      .auth(owner.token, { type: 'bearer' })
      .send({ name: 'third', is_default_outbound: true, config: { provider: 'simulator' } });
    expect(third.status).toBe(201);
    const after = await request(app).get(`${BASE}/${second.id}`).auth(owner.token, { type: 'bearer' });
    expect(after.body.is_default_outbound).toBe(false);
  });
});

describe('DELETE', () => {
  it('deletes a configuration and its numbers', async () => {
    const created = await createTelephonyConfig(app, token);
    await as('post', `${BASE}/${created.id}/phone-numbers`).send({ address: '+14155550199' });
    const res = await as('delete', `${BASE}/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Telephony configuration deleted' });
    expect((await as('get', `${BASE}/${created.id}`)).status).toBe(404);
    const numbers = await services.db.dataSource.query(
      'SELECT 1 FROM phone_numbers WHERE telephony_configuration_id = $1',
      [created.id],
    );
    expect(numbers).toHaveLength(0);
  });

  it('refuses while a campaign references it', async () => {
    const owner = await signUp(app);
    const created = await createTelephonyConfig(app, owner.token);
    const agentId = await insertAgent(services.db.dataSource, owner.user.organization_id);
    const campaignId = await insertCampaign(services.db.dataSource, owner.user.organization_id, agentId);
    await services.db.dataSource.query('UPDATE campaigns SET telephony_configuration_id = $1 WHERE id = $2', [
      created.id,
      campaignId,
    ]);
    const res = await request(app).delete(`${BASE}/${created.id}`).auth(owner.token, { type: 'bearer' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      detail: `Telephony configuration ${created.id} is referenced by one or more campaigns and cannot be deleted.`,
    });
  });

  it('answers 404 for an unknown id', async () => {
    const res = await as('delete', `${BASE}/999999`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Telephony configuration not found' });
  });
});
