import request from 'supertest';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { useTestServices } from '../helpers/services';
import { createPhoneNumber, createTelephonyConfig, insertAgent, TEST_SECRETS_KEY } from '../helpers/telephony';
import { FakeProviderServer } from '../telephony/helpers/fake-provider-server';

const services = useTestServices();
const twilio = {
  provider: 'twilio',
  account_sid: 'AC0123456789abcdef0123456789abcdef',
  auth_token: 'secret-token-9876',
};
const numbersOf = (configId: number) => `/api/v1/organizations/telephony-configs/${configId}/phone-numbers`;
const INBOUND_URL = 'https://sb.example.com/api/v1/telephony/twilio/inbound';

let fake: FakeProviderServer;
let app: TestServer;
let owner: SignedUp;
let simulatorConfigId: number;
let twilioConfigId: number;
let agentId: number;

beforeAll(async () => {
  fake = await FakeProviderServer.start();
  app = services.server({
    SECRETS_KEY: TEST_SECRETS_KEY,
    TELEPHONY_API_BASE_URL: fake.url,
    PUBLIC_BASE_URL: 'https://sb.example.com',
  });
  owner = await signUp(app);
  simulatorConfigId = (await createTelephonyConfig(app, owner.token)).id;
  twilioConfigId = (await createTelephonyConfig(app, owner.token, twilio)).id;
  agentId = await insertAgent(services.db.dataSource, owner.user.organization_id, 'Front desk');
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const as = (method: 'get' | 'post' | 'put' | 'delete', path: string) =>
  request(app)[method](path).auth(owner.token, { type: 'bearer' });

/** Twilio's answers to a number lookup and a VoiceUrl update. */
const twilioAccepts = () =>
  fake.answer(
    { status: 200, body: { incoming_phone_numbers: [{ sid: 'PN42', phone_number: '+14155550100' }] } },
    { status: 200, body: { sid: 'PN42' } },
  );
const voiceUrlSent = () => new URLSearchParams(fake.requests[1]?.body).get('VoiceUrl');

describe('create and read', () => {
  it('normalizes a PSTN number to E.164 and answers the spec shape', async () => {
    const res = await as('post', numbersOf(simulatorConfigId)).send({
      address: '(415) 555-0123',
      country_code: 'us',
      label: 'Main line',
      extra_metadata: { team: 'sales' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      telephony_configuration_id: simulatorConfigId,
      address: '(415) 555-0123',
      address_normalized: '+14155550123',
      address_type: 'pstn',
      country_code: 'US',
      label: 'Main line',
      inbound_workflow_id: null,
      inbound_workflow_name: null,
      is_active: true,
      is_default_caller_id: false,
      extra_metadata: { team: 'sales' },
      created_at: expect.stringMatching(/^\d{4}-/),
      updated_at: expect.stringMatching(/^\d{4}-/),
    });
    const read = await as('get', `${numbersOf(simulatorConfigId)}/${res.body.id}`);
    expect(read.body).toEqual(res.body);
    const list = await as('get', numbersOf(simulatorConfigId));
    expect(list.body.phone_numbers).toContainEqual(res.body);
  });

  it.each([
    ['+44 20 7946 0958', '+442079460958', 'pstn'],
    ['sip:Agent@PBX.example.com', 'sip:agent@pbx.example.com', 'sip_uri'],
    ['1001', '1001', 'sip_extension'],
    ['front-desk', 'front-desk', 'sip_extension'],
  ])('classifies %s as %s (%s)', async (address, normalized, type) => {
    const res = await as('post', numbersOf(simulatorConfigId)).send({ address });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ address_normalized: normalized, address_type: type });
  });

  it.each([
    ['a bare national number without country code', { address: '4155550124' }, ['body', 'address']],
    ['an invalid number', { address: '+1 23' }, ['body', 'address']],
    ['an unknown country code', { address: '4155550124', country_code: 'XX' }, ['body', 'country_code']],
    ['spaces inside an extension', { address: 'front desk' }, ['body', 'address']],
    ['a 10 KB address', { address: '1'.repeat(10_240) }, ['body', 'address']],
    ['a long label', { address: '+14155550125', label: 'l'.repeat(65) }, ['body', 'label']],
  ])('422 for %s, writing nothing', async (_case, body, loc) => {
    const before = (await as('get', numbersOf(simulatorConfigId))).body.phone_numbers.length;
    const res = await as('post', numbersOf(simulatorConfigId)).send(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toContainEqual(expect.objectContaining({ loc, msg: expect.any(String) }));
    expect((await as('get', numbersOf(simulatorConfigId))).body.phone_numbers).toHaveLength(before);
  });

  it('409 for the same normalized address twice in the organization, across configurations', async () => {
    await createPhoneNumber(app, owner.token, simulatorConfigId, { address: '+14155550126' });
    const res = await as('post', numbersOf(twilioConfigId)).send({ address: '415-555-0126', country_code: 'US' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: 'A phone number with this address already exists in the org.' });
  });

  it('404 for an inbound workflow of another organization', async () => {
    const stranger = await signUp(app);
    const foreignAgent = await insertAgent(services.db.dataSource, stranger.user.organization_id);
    const res = await as('post', numbersOf(simulatorConfigId)).send({
      address: '+14155550127',
      inbound_workflow_id: foreignAgent,
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: `Workflow with id ${foreignAgent} not found` });
  });

  it('404 for a number under another configuration of the organization', async () => {
    const number = await createPhoneNumber(app, owner.token, simulatorConfigId, { address: '+14155550128' });
    const res = await as('get', `${numbersOf(twilioConfigId)}/${number.id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Phone number not found' });
  });
});

describe('default caller', () => {
  it('keeps at most one default per configuration', async () => {
    const config = await createTelephonyConfig(app, owner.token);
    const first = await createPhoneNumber(app, owner.token, config.id, {
      address: '+14155550130',
      is_default_caller_id: true,
    });
    const second = await createPhoneNumber(app, owner.token, config.id, { address: '+14155550131' });

    const res = await as('post', `${numbersOf(config.id)}/${second.id}/set-default-caller`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: second.id, is_default_caller_id: true });

    type Listed = { phone_numbers: { id: number; is_default_caller_id: boolean }[] };
    const defaultFlags = async () =>
      ((await as('get', numbersOf(config.id))).body as Listed).phone_numbers.map((n) => [n.id, n.is_default_caller_id]);
    expect(await defaultFlags()).toEqual([
      [first.id, false],
      [second.id, true],
    ]);

    const third = await createPhoneNumber(app, owner.token, config.id, {
      address: '+14155550132',
      is_default_caller_id: true,
    });
    expect((await defaultFlags()).filter(([, isDefault]) => isDefault)).toEqual([[third.id, true]]);
  });
});

describe('inbound binding', () => {
  it('attaches at the provider on create and reports provider_sync', async () => {
    twilioAccepts();
    const res = await as('post', numbersOf(twilioConfigId)).send({
      address: '+14155550100',
      inbound_workflow_id: agentId,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      inbound_workflow_id: agentId,
      inbound_workflow_name: 'Front desk',
      provider_sync: { ok: true, message: expect.any(String) },
    });
    expect(fake.requests[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${twilio.account_sid}:${twilio.auth_token}`).toString('base64')}`,
    );
    expect(voiceUrlSent()).toBe(INBOUND_URL);
  });

  it('binds, keeps on null, clears with clear_inbound_workflow, each change synced', async () => {
    const number = await createPhoneNumber(app, owner.token, twilioConfigId, { address: '+14155550140' });
    const path = `${numbersOf(twilioConfigId)}/${number.id}`;

    twilioAccepts();
    const bound = await as('put', path).send({ inbound_workflow_id: agentId });
    expect(bound.status).toBe(200);
    expect(bound.body).toMatchObject({ inbound_workflow_id: agentId, provider_sync: { ok: true } });
    expect(voiceUrlSent()).toBe(INBOUND_URL);

    fake.reset();
    const kept = await as('put', path).send({ inbound_workflow_id: null, label: 'Reception' });
    expect(kept.body).toMatchObject({
      inbound_workflow_id: agentId,
      label: 'Reception',
      provider_sync: { ok: true, message: 'Inbound routing unchanged: the provider was not contacted.' },
    });
    expect(fake.requests).toHaveLength(0);

    twilioAccepts();
    const cleared = await as('put', path).send({ clear_inbound_workflow: true });
    expect(cleared.body).toMatchObject({
      inbound_workflow_id: null,
      inbound_workflow_name: null,
      provider_sync: { ok: true },
    });
    expect(voiceUrlSent()).toBe('');
  });

  it('answers provider_sync.ok=false as a warning when the provider refuses, keeping the write', async () => {
    const number = await createPhoneNumber(app, owner.token, twilioConfigId, { address: '+14155550141' });
    const path = `${numbersOf(twilioConfigId)}/${number.id}`;
    fake.answer({ status: 401, body: { code: 20003, message: 'Authenticate', status: 401 } });

    const res = await as('put', path).send({ inbound_workflow_id: agentId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      inbound_workflow_id: agentId,
      provider_sync: { ok: false, message: 'Twilio answered 401: Authenticate' },
    });
    expect(JSON.stringify(res.body)).not.toContain(twilio.auth_token);
    expect((await as('get', path)).body.inbound_workflow_id).toBe(agentId);
  });

  it('refuses both inbound_workflow_id and clear_inbound_workflow, and an address change', async () => {
    const number = await createPhoneNumber(app, owner.token, simulatorConfigId, { address: '+14155550142' });
    const path = `${numbersOf(simulatorConfigId)}/${number.id}`;
    const both = await as('put', path).send({ inbound_workflow_id: agentId, clear_inbound_workflow: true });
    expect(both.status).toBe(422);
    const moved = await as('put', path).send({ address: '+14155550143' });
    expect(moved.status).toBe(400);
    const same = await as('put', path).send({ address: '+14155550142', is_active: false });
    expect(same.status).toBe(200);
    expect(same.body.is_active).toBe(false);
  });
});

describe('DELETE', () => {
  it('detaches a bound number at the provider first, then deletes it', async () => {
    twilioAccepts();
    const number = await createPhoneNumber(app, owner.token, twilioConfigId, {
      address: '+14155550150',
      inbound_workflow_id: agentId,
    });
    fake.reset();
    twilioAccepts();
    const res = await as('delete', `${numbersOf(twilioConfigId)}/${number.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'Phone number deleted',
      provider_sync: { ok: true, message: expect.any(String) },
    });
    expect(voiceUrlSent()).toBe('');
    expect((await as('get', `${numbersOf(twilioConfigId)}/${number.id}`)).status).toBe(404);
  });

  it('answers 502 with the provider message and deletes nothing when the detach fails', async () => {
    twilioAccepts();
    const number = await createPhoneNumber(app, owner.token, twilioConfigId, {
      address: '+14155550151',
      inbound_workflow_id: agentId,
    });
    fake.reset();
    fake.answer({ status: 503, body: { message: 'Service Unavailable' } });
    const res = await as('delete', `${numbersOf(twilioConfigId)}/${number.id}`);
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ detail: 'Twilio answered 503: Service Unavailable' });
    expect((await as('get', `${numbersOf(twilioConfigId)}/${number.id}`)).status).toBe(200);
  });

  it('deletes an unbound number without contacting the provider', async () => {
    const number = await createPhoneNumber(app, owner.token, twilioConfigId, { address: '+14155550152' });
    const res = await as('delete', `${numbersOf(twilioConfigId)}/${number.id}`);
    expect(res.status).toBe(200);
    expect(fake.requests).toHaveLength(0);
  });
});
