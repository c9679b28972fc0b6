import request from 'supertest';
import type { TestServer } from '../helpers/accounts';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { insertContactSource } from '../helpers/campaign-api';
import { useTestServices } from '../helpers/services';
import { createPhoneNumber, createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
let app: TestServer;
let org: CallingOrganization;
let sourceId: string;

beforeAll(async () => {
  app = services.server({ SECRETS_KEY: TEST_SECRETS_KEY });
  org = await callingOrganization(app);
  sourceId = await insertContactSource(services.db.dataSource, org.owner.user.organization_id, [
    { phone_number: '+14155551001', first_name: 'Ada' },
  ]);
});

const CONFIGS = '/api/v1/organizations/telephony-configs';
const as = (method: 'post' | 'put' | 'get' | 'patch', path: string) =>
  request(app)[method](path).auth(org.owner.token, { type: 'bearer' });
const campaignBody = (change: Record<string, unknown>) => ({
  name: 'Bounds',
  workflow_id: org.agent.id,
  source_type: 'csv',
  source_id: sourceId,
  ...change,
});

describe('calls_per_second', () => {
  it('defaults per provider, is set, changed and reset through the API', async () => {
    const twilio = await createTelephonyConfig(app, org.owner.token, {
      provider: 'twilio',
      account_sid: 'AC0123456789abcdef0123456789abcdef',
      auth_token: 'secret-token-9876',
    });
    expect(twilio).toMatchObject({ calls_per_second: null, effective_calls_per_second: 1 });
    expect(org.configuration).toMatchObject({ calls_per_second: null, effective_calls_per_second: null });
    const set = await as('put', `${CONFIGS}/${twilio.id}`).send({ calls_per_second: 2.5 });
    expect(set.body).toMatchObject({ calls_per_second: 2.5, effective_calls_per_second: 2.5 });
    const reset = await as('put', `${CONFIGS}/${twilio.id}`).send({ calls_per_second: null });
    expect(reset.body).toMatchObject({ calls_per_second: null, effective_calls_per_second: 1 });
    const created = await as('post', CONFIGS).send({
      name: 'paced',
      calls_per_second: 10,
      config: { provider: 'simulator' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ calls_per_second: 10, effective_calls_per_second: 10 });
  });

  it.each([0, -1, 0.001, 1000.5, 1e308, '2', true, [2], { rate: 2 }])('refuses %p with 422', async (value) => {
    const res = await as('put', `${CONFIGS}/${org.configuration.id}`).send({ calls_per_second: value });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'calls_per_second']);
  });

  it('refuses simulator carrier fields out of bounds', async () => {
    for (const config of [
      { provider: 'simulator', dial_error_status: 200 },
      { provider: 'simulator', dial_error_status: 600 },
      { provider: 'simulator', max_calls_per_second: 0 },
      { provider: 'simulator', max_calls_per_second: 5000 },
    ]) {
      const res = await as('post', CONFIGS).send({ name: 'bad simulator', config });
      expect(res.status).toBe(422);
    }
  });
});

describe('a campaign fallback and voicemail_action', () => {
  it('stores a fallback configuration and caller number, and the voicemail action', async () => {
    const fallback = await createTelephonyConfig(app, org.owner.token, { provider: 'simulator' });
    await createPhoneNumber(app, org.owner.token, fallback.id, { address: '+14155550199' });
    const res = await as('post', '/api/v1/campaign/create').send(
      campaignBody({
        fallback_telephony_configuration_id: fallback.id,
        fallback_caller_number: '+14155550199',
        voicemail_action: 'leave_message',
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      telephony_configuration_id: org.configuration.id,
      fallback_telephony_configuration_id: fallback.id,
      fallback_caller_number: '+14155550199',
      active_telephony_configuration_id: org.configuration.id,
      failed_over_at: null,
      voicemail_action: 'leave_message',
    });
    const plain = await as('post', '/api/v1/campaign/create').send(campaignBody({}));
    expect(plain.body).toMatchObject({ fallback_telephony_configuration_id: null, voicemail_action: 'retry_later' });
  });

  it('refuses a fallback that is not usable: 400 with the reason', async () => {
    const other = await callingOrganization(app);
    const cases: [Record<string, unknown>, string][] = [
      [{ fallback_telephony_configuration_id: other.configuration.id }, 'fallback_telephony_configuration_not_found'],
      [{ fallback_telephony_configuration_id: 2_000_000_000 }, 'fallback_telephony_configuration_not_found'],
      [
        { fallback_telephony_configuration_id: org.configuration.id },
        'The fallback telephony configuration must differ from the campaign configuration',
      ],
    ];
    const fallback = await createTelephonyConfig(app, org.owner.token, { provider: 'simulator' });
    cases.push([
      { fallback_telephony_configuration_id: fallback.id, fallback_caller_number: '+14155550100' },
      'fallback_caller_number_not_found',
    ]);
    for (const [change, detail] of cases) {
      const res = await as('post', '/api/v1/campaign/create').send(campaignBody(change));
      expect({ status: res.status, detail: res.body.detail }).toEqual({ status: 400, detail });
    }
  });

  it.each([
    [{ fallback_telephony_configuration_id: -1 }, 'fallback_telephony_configuration_id'],
    [{ fallback_telephony_configuration_id: 'x' }, 'fallback_telephony_configuration_id'],
    [{ fallback_telephony_configuration_id: 3, fallback_caller_number: '4155550199' }, 'fallback_caller_number'],
    [
      { fallback_telephony_configuration_id: 3, fallback_caller_number: `+1${'5'.repeat(40)}` },
      'fallback_caller_number',
    ],
    [{ fallback_caller_number: '+14155550199' }, 'fallback_caller_number'],
    [{ voicemail_action: 'sing' }, 'voicemail_action'],
    [{ voicemail_action: 'x'.repeat(10_000) }, 'voicemail_action'],
  ])('refuses %p with 422 at %s', async (change, field) => {
    const res = await as('post', '/api/v1/campaign/create').send(campaignBody(change));
    expect(res.status).toBe(422);
    const issues = (res.body as { detail: { loc: string[] }[] }).detail;
    expect(issues.map((issue) => issue.loc.at(-1))).toContain(field);
  });
});

describe('changing the fallback and voicemail_action with PATCH /campaign/{id}', () => {
  const draft = async () => {
    const res = await as('post', '/api/v1/campaign/create').send(campaignBody({}));
    expect(res.status).toBe(201);
    return res.body.id as number;
  };
  const patch = (id: number, body: Record<string, unknown>) => as('patch', `/api/v1/campaign/${id}`).send(body);

  it('sets, changes and removes them on a draft', async () => {
    const fallback = await createTelephonyConfig(app, org.owner.token, { provider: 'simulator' });
    await createPhoneNumber(app, org.owner.token, fallback.id, { address: '+14155550142' });
    await createPhoneNumber(app, org.owner.token, fallback.id, { address: '+14155550143' });
    const id = await draft();

    const set = await patch(id, {
      fallback_telephony_configuration_id: fallback.id,
      fallback_caller_number: '+14155550142',
      voicemail_action: 'leave_message',
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      fallback_telephony_configuration_id: fallback.id,
      fallback_caller_number: '+14155550142',
      voicemail_action: 'leave_message',
    });
    // A caller number alone changes the current fallback's; the rest stays.
    const number = await patch(id, { fallback_caller_number: '+14155550143' });
    expect(number.body).toMatchObject({
      fallback_telephony_configuration_id: fallback.id,
      fallback_caller_number: '+14155550143',
      voicemail_action: 'leave_message',
    });
    const defaultCallerId = await patch(id, { fallback_caller_number: null });
    expect(defaultCallerId.body).toMatchObject({
      fallback_telephony_configuration_id: fallback.id,
      fallback_caller_number: null,
    });
    const removed = await patch(id, { fallback_telephony_configuration_id: null, voicemail_action: 'hang_up' });
    expect(removed.body).toMatchObject({
      fallback_telephony_configuration_id: null,
      fallback_caller_number: null,
      voicemail_action: 'hang_up',
    });
    const stored = await as('get', `/api/v1/campaign/${id}`);
    expect(stored.body).toMatchObject({ fallback_telephony_configuration_id: null, voicemail_action: 'hang_up' });
    const { logs } = stored.body as { logs: { event: string }[] };
    expect(logs.map((log) => log.event)).toContain('config_updated');
  });

  it("refuses another organization's configuration, and every unusable fallback, with 400 and changes nothing", async () => {
    const other = await callingOrganization(app);
    const fallback = await createTelephonyConfig(app, org.owner.token, { provider: 'simulator' });
    const id = await draft();
    const cases: [Record<string, unknown>, string][] = [
      [{ fallback_telephony_configuration_id: other.configuration.id }, 'fallback_telephony_configuration_not_found'],
      [
        { fallback_telephony_configuration_id: other.configuration.id, voicemail_action: 'hang_up' },
        'fallback_telephony_configuration_not_found',
      ],
      [{ fallback_telephony_configuration_id: 2_000_000_000 }, 'fallback_telephony_configuration_not_found'],
      [
        { fallback_telephony_configuration_id: org.configuration.id },
        'The fallback telephony configuration must differ from the campaign configuration',
      ],
      [
        { fallback_telephony_configuration_id: fallback.id, fallback_caller_number: '+14155550100' },
        'fallback_caller_number_not_found',
      ],
      [
        { fallback_caller_number: '+14155550100' },
        'fallback_caller_number needs fallback_telephony_configuration_id: the campaign has no fallback',
      ],
    ];
    for (const [change, detail] of cases) {
      const res = await patch(id, change);
      expect({ change, status: res.status, detail: res.body.detail }).toEqual({ change, status: 400, detail });
    }
    // Organization B cannot set A's configuration as its campaign's fallback either.
    const theirs = await request(app)
      .post('/api/v1/campaign/create')
      .auth(other.owner.token, { type: 'bearer' })
      .send({
        name: 'Theirs',
        workflow_id: other.agent.id,
        source_type: 'csv',
        source_id: await insertContactSource(services.db.dataSource, other.owner.user.organization_id, [
          { phone_number: '+14155551002', first_name: 'Bo' },
        ]),
      });
    expect(theirs.status).toBe(201);
    const crossed = await request(app)
      .patch(`/api/v1/campaign/${theirs.body.id}`)
      .auth(other.owner.token, { type: 'bearer' })
      .send({ fallback_telephony_configuration_id: fallback.id });
    expect({ status: crossed.status, detail: crossed.body.detail }).toEqual({
      status: 400,
      detail: 'fallback_telephony_configuration_not_found',
    });
    const unchanged = await as('get', `/api/v1/campaign/${id}`);
    expect(unchanged.body).toMatchObject({
      fallback_telephony_configuration_id: null,
      voicemail_action: 'retry_later',
    });
  });

  it.each([
    [{ fallback_telephony_configuration_id: 0 }, 'fallback_telephony_configuration_id'],
    [{ fallback_telephony_configuration_id: 'x' }, 'fallback_telephony_configuration_id'],
    [{ fallback_caller_number: '4155550199' }, 'fallback_caller_number'],
    [{ fallback_caller_number: `+1${'5'.repeat(40)}` }, 'fallback_caller_number'],
    [{ fallback_telephony_configuration_id: null, fallback_caller_number: '+14155550199' }, 'fallback_caller_number'],
    [{ voicemail_action: 'sing' }, 'voicemail_action'],
    [{ voicemail_action: null }, 'voicemail_action'],
    [{ voicemail_action: 'x'.repeat(10_000) }, 'voicemail_action'],
  ])('refuses %p with 422 at %s', async (change, field) => {
    const res = await patch(await draft(), change);
    expect(res.status).toBe(422);
    const issues = (res.body as { detail: { loc: string[] }[] }).detail;
    expect(issues.map((issue) => issue.loc.at(-1))).toContain(field);
  });
});

describe("an agent's voicemail_message", () => {
  it('is bounded at 1,000 characters', async () => {
    const long = await as('put', `/api/v1/workflow/${org.agent.id}`).send({
      workflow_configurations: { voicemail_message: 'x'.repeat(1001) },
    });
    expect(long.status).toBe(422);
    const wrong = await as('put', `/api/v1/workflow/${org.agent.id}`).send({
      workflow_configurations: { voicemail_message: { text: 'hi' } },
    });
    expect(wrong.status).toBe(422);
    const fine = await as('put', `/api/v1/workflow/${org.agent.id}`).send({
      workflow_configurations: { voicemail_message: 'Hi {{first_name}}, please call us back.' },
    });
    expect(fine.status).toBe(200);
  });
});
