import request from 'supertest';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

let app: TestServer;
let owner: SignedUp;
beforeAll(async () => {
  app = services.server({ SECRETS_KEY: TEST_SECRETS_KEY, TELEPHONY_SIMULATOR: 'true' });
  owner = await signUp(app);
});

const transferTool = (config: Record<string, unknown>, as: SignedUp = owner) =>
  request(app)
    .post('/api/v1/tools')
    .auth(as.token, { type: 'bearer' })
    .send({
      name: 'Put through',
      description: 'Hands the caller to sales.',
      definition: { type: 'transfer_call', config },
    });

describe('transfer_call tools', () => {
  it('saves each destination source with its defaults: blind, a 30 s ring timeout', async () => {
    for (const config of [
      { destination_source: 'static', destination: '+1 (415) 555-0999' },
      { destination_source: 'static', destination: '{{initial_context.desk}}' },
      { destination_source: 'static', destination: 'sip:desk@pbx.example.com' },
      { destination_source: 'dynamic', allowed_destinations: ['+14155550999', 'sip:sales@pbx.example.com'] },
      {
        destination_source: 'context_mapping',
        rules: [{ context_path: 'gathered_context.department', equals: 'sales', destination: '+14155550999' }],
        fallback_destination: '+14155550998',
      },
    ]) {
      const res = await transferTool(config);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        category: 'transfer_call',
        definition: { config: { mode: 'blind', ring_timeout_seconds: 30 } },
      });
    }
    const saved = await transferTool({ destination_source: 'static', destination: '+1 (415) 555-0999' });
    expect(saved.body.definition.config.destination).toBe('+1 (415) 555-0999');
  });

  it.each([
    [{ destination_source: 'static' }, 'destination', /required/],
    [{ destination_source: 'static', destination: '555-CALL-ME' }, 'destination', /E\.164/],
    [{ destination_source: 'dynamic' }, 'allowed_destinations', /required/],
    [{ destination_source: 'dynamic', allowed_destinations: ['sales desk'] }, 'allowed_destinations', /E\.164/],
    [{ destination_source: 'context_mapping', rules: [] }, 'fallback_destination', /required/],
    [
      {
        destination_source: 'context_mapping',
        rules: [{ context_path: 'department', equals: 'sales', destination: '+14155550999' }],
        fallback_destination: '+14155550998',
      },
      'rules',
      /initial_context/,
    ],
    [
      { destination_source: 'static', destination: '+14155550999', ring_timeout_seconds: 4 },
      'ring_timeout_seconds',
      /5/,
    ],
    [
      { destination_source: 'static', destination: '+14155550999', ring_timeout_seconds: 121 },
      'ring_timeout_seconds',
      /120/,
    ],
  ])('refuses %j with a 422 at %s', async (config, field, message) => {
    const res = await transferTool(config);
    expect(res.status).toBe(422);
    const issue = (res.body.detail as { loc: (string | number)[]; msg: string }[]).find((item) =>
      item.loc.includes(field),
    );
    expect(issue?.msg).toMatch(message);
  });

  it('saves a warm transfer with its message where every provider of the organization can make one, refuses it where one cannot', async () => {
    const org = await signUp(app);
    const warm = {
      destination_source: 'static',
      destination: '+14155550999',
      mode: 'warm',
      warm_message: 'A caller about {{initial_context.topic}}.',
    };
    // No configuration yet: some provider (the simulator) can make one.
    expect((await transferTool(warm, org)).status).toBe(201);
    await createTelephonyConfig(app, org.token, { provider: 'simulator' });
    const saved = await transferTool(warm, org);
    expect(saved.status).toBe(201);
    expect(saved.body.definition.config).toMatchObject({ mode: 'warm', warm_message: warm.warm_message });
    await createTelephonyConfig(app, org.token, { provider: 'plivo', auth_id: 'ABCD', auth_token: 'xyz' });
    expect((await transferTool(warm, org)).status).toBe(201);

    await createTelephonyConfig(app, org.token, {
      provider: 'twilio',
      account_sid: 'AC0123456789abcdef0123456789abcdef',
      auth_token: 'twilio-token',
    });
    expect((await transferTool(warm, org)).status).toBe(201);
    await createTelephonyConfig(app, org.token, {
      provider: 'vonage',
      api_key: 'abcd1234',
      api_secret: 'secret',
      application_id: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
      private_key: '-----BEGIN PRIVATE KEY-----',
    });
    expect((await transferTool(warm, org)).status).toBe(201);
    await createTelephonyConfig(app, org.token, { provider: 'cloudonix', bearer_token: 'XI-key', domain_id: 'acme' });
    const refused = await transferTool(warm, org);
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'definition', 'config', 'mode']);
    expect(refused.body.detail[0].msg).toBe(
      "A warm transfer is not supported by cloudonix (this organization's telephony providers)",
    );
  });

  it('refuses a warm message longer than the text limit', async () => {
    const res = await transferTool({
      destination_source: 'static',
      destination: '+14155550999',
      mode: 'warm',
      warm_message: 'x'.repeat(4_001),
    });
    expect(res.status).toBe(422);
    expect((res.body.detail as { loc: string[] }[])[0]?.loc).toContain('warm_message');
  });

  it('saves blind and warm transfers for an organization calling through Twilio, Telnyx and Vonage', async () => {
    const other = await signUp(app);
    for (const config of [
      { provider: 'twilio', account_sid: 'AC0123456789abcdef0123456789abcdef', auth_token: 'twilio-token' },
      { provider: 'telnyx', api_key: 'KEY_test', connection_id: '1293384261075731499' },
      {
        provider: 'vonage',
        api_key: 'abcd1234',
        api_secret: 'secret',
        application_id: 'aaaaaaaa-bbbb-cccc-dddd-0123456789ab',
        private_key: '-----BEGIN PRIVATE KEY-----',
      },
    ]) {
      await createTelephonyConfig(app, other.token, config);
    }
    const save = (mode: string) =>
      request(app)
        .post('/api/v1/tools')
        .auth(other.token, { type: 'bearer' })
        .send({
          name: `Put through ${mode}`,
          description: 'Hands the caller to sales.',
          definition: {
            type: 'transfer_call',
            config: { destination_source: 'static', destination: '+14155550999', mode },
          },
        });

    expect((await save('blind')).status).toBe(201);
    expect((await save('warm')).status).toBe(201);
  });

  it("lists each provider's transfer modes in the providers' metadata", async () => {
    const res = await request(app)
      .get('/api/v1/organizations/telephony-providers/metadata')
      .auth(owner.token, { type: 'bearer' });
    expect(res.status).toBe(200);
    const modes = Object.fromEntries(
      (res.body.providers as { provider: string; transfer_modes: string[] }[]).map((p) => [
        p.provider,
        p.transfer_modes,
      ]),
    );
    expect(modes.simulator).toEqual(['blind', 'warm']);
    expect(modes.twilio).toEqual(['blind', 'warm']);
    expect(modes.telnyx).toEqual(['blind', 'warm']);
    expect(modes.vonage).toEqual(['blind', 'warm']);
    expect(modes.plivo).toEqual(['blind', 'warm']);
    expect(modes.vobiz).toEqual(['blind', 'warm']);
    expect(modes.ari).toEqual(['blind']);
    expect(modes.cloudonix).toEqual(['blind']);
  });
});
