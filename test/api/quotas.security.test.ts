import request from 'supertest';
import { JSON_LIMITS } from '../../domain/limits';
import { signUp, type SignedUp } from '../helpers/accounts';
import { createAgent, sampleDefinition } from '../helpers/agents';
import { callingOrganization } from '../helpers/calls';
import { contactIds, insertAttempt, insertContactSource } from '../helpers/campaign-api';
import { useTestServices } from '../helpers/services';
import { createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
/** Small limits, so that going past each is quick. */
const LIMITS = {
  QUOTA_AGENTS: 3,
  QUOTA_AGENT_VERSIONS: 3,
  QUOTA_TELEPHONY_CONFIGURATIONS: 2,
  QUOTA_PHONE_NUMBERS: 3,
  QUOTA_CAMPAIGNS: 2,
  QUOTA_CAMPAIGN_SOURCES: 2,
  QUOTA_API_KEYS: 3,
  QUOTA_DO_NOT_CALL_NUMBERS: 3,
};
const server = () =>
  services.server({
    SECRETS_KEY: TEST_SECRETS_KEY,
    ...Object.fromEntries(Object.entries(LIMITS).map(([name, value]) => [name, String(value)])),
  });

const count = async (sql: string, parameters: unknown[]): Promise<number> => {
  const [row] = await services.db.dataSource.query<{ count: number }[]>(sql, parameters);
  return row?.count ?? -1;
};
const orgRows = (table: string, owner: SignedUp) =>
  count(`SELECT count(*)::int AS count FROM ${table} WHERE organization_id = $1`, [owner.user.organization_id]);

type Send = (index: number) => Promise<request.Response>;

/**
 * The attack on one quota: `limit + 4` creates at once, then one more. Exactly `limit` succeed,
 * every other answers 409 naming the quota and its limit, and nothing past the limit is stored.
 */
async function overrun(send: Send, limit: number, detail: RegExp, stored: () => Promise<number>): Promise<void> {
  const before = await stored();
  const answers = await Promise.all(Array.from({ length: limit - before + 4 }, (_, index) => send(index)));
  const statuses = answers.map((res) => res.status);
  expect(statuses.filter((status) => status === 200 || status === 201)).toHaveLength(limit - before);
  expect(statuses.filter((status) => status === 409)).toHaveLength(4);
  for (const res of answers.filter((answer) => answer.status === 409)) {
    expect(res.body).toEqual({ detail: expect.stringMatching(detail) });
  }
  expect(await stored()).toBe(limit);
  const late = await send(limit + 10);
  expect(late.status).toBe(409);
  expect(late.body.detail).toMatch(detail);
  expect(await stored()).toBe(limit);
}

beforeAll(async () => {});

describe('per-organization quotas, past each limit and with concurrent creates', () => {
  it('agents (QUOTA_AGENTS), from a definition or a description', async () => {
    const owner = await signUp(server());
    await overrun(
      (index) =>
        request(server())
          .post('/api/v1/workflow/create/definition')
          .auth(owner.token, { type: 'bearer' })
          .send({ name: `Agent ${index}`, workflow_definition: sampleDefinition() }),
      LIMITS.QUOTA_AGENTS,
      /^Quota exceeded: an organization may have at most 3 agents \(agents, QUOTA_AGENTS\)$/,
      () => orgRows('agents', owner),
    );
    const drafted = await request(server())
      .post('/api/v1/workflow/create/template')
      .auth(owner.token, { type: 'bearer' })
      .send({ use_case: 'Reminders', activity_description: 'Remind people of appointments' });
    expect(drafted.status).toBe(409);
    expect(await orgRows('agents', owner)).toBe(LIMITS.QUOTA_AGENTS);
    // Archived agents are still stored rows: archiving one frees nothing.
    const [agent] = await services.db.dataSource.query<{ id: number }[]>(
      'SELECT id FROM agents WHERE organization_id = $1 LIMIT 1',
      [owner.user.organization_id],
    );
    await request(server())
      .put(`/api/v1/workflow/${agent?.id}/status`)
      .auth(owner.token, { type: 'bearer' })
      .send({ status: 'archived' });
    const after = await request(server())
      .post('/api/v1/workflow/create/definition')
      .auth(owner.token, { type: 'bearer' })
      .send({ name: 'One more', workflow_definition: sampleDefinition() });
    expect(after.status).toBe(409);
  });

  it('versions of an agent (QUOTA_AGENT_VERSIONS), each update making one', async () => {
    const owner = await signUp(server());
    const agent = await createAgent(server(), owner.token);
    const versions = () => count('SELECT count(*)::int AS count FROM agent_versions WHERE agent_id = $1', [agent.id]);
    await overrun(
      (index) =>
        request(server())
          .put(`/api/v1/workflow/${agent.id}`)
          .auth(owner.token, { type: 'bearer' })
          .send({ name: `Renamed ${index}`, template_context_variables: { revision: index } }),
      LIMITS.QUOTA_AGENT_VERSIONS,
      /^Quota exceeded: an agent may have at most 3 versions \(agent_versions, QUOTA_AGENT_VERSIONS\)$/,
      versions,
    );
    // A refused update changes nothing, not even the name it carried.
    const [row] = await services.db.dataSource.query<{ name: string }[]>('SELECT name FROM agents WHERE id = $1', [
      agent.id,
    ]);
    const shown = await request(server())
      .get(`/api/v1/workflow/fetch/${agent.id}`)
      .auth(owner.token, { type: 'bearer' });
    expect(shown.body.name).toBe(row?.name);
    expect(shown.body.version_number).toBe(LIMITS.QUOTA_AGENT_VERSIONS);
    expect(row?.name).not.toBe(`Renamed ${LIMITS.QUOTA_AGENT_VERSIONS + 10}`);
  });

  it('telephony configurations (QUOTA_TELEPHONY_CONFIGURATIONS)', async () => {
    const owner = await signUp(server());
    await overrun(
      (index) =>
        request(server())
          .post('/api/v1/organizations/telephony-configs')
          .auth(owner.token, { type: 'bearer' })
          .send({ name: `config ${index}`, config: { provider: 'simulator' } }),
      LIMITS.QUOTA_TELEPHONY_CONFIGURATIONS,
      /^Quota exceeded: an organization may have at most 2 telephony configurations \(telephony_configurations, QUOTA_TELEPHONY_CONFIGURATIONS\)$/,
      () => orgRows('telephony_configurations', owner),
    );
  });

  it('phone numbers (QUOTA_PHONE_NUMBERS), across configurations', async () => {
    const owner = await signUp(server());
    const first = await createTelephonyConfig(server(), owner.token);
    const second = await createTelephonyConfig(server(), owner.token);
    await overrun(
      (index) =>
        request(server())
          .post(`/api/v1/organizations/telephony-configs/${index % 2 ? first.id : second.id}/phone-numbers`)
          .auth(owner.token, { type: 'bearer' })
          .send({ address: `+1415555${String(100 + index).padStart(4, '0')}` }),
      LIMITS.QUOTA_PHONE_NUMBERS,
      /^Quota exceeded: an organization may have at most 3 phone numbers \(phone_numbers, QUOTA_PHONE_NUMBERS\)$/,
      () => orgRows('phone_numbers', owner),
    );
  });

  it('API keys (QUOTA_API_KEYS), archived ones included', async () => {
    const owner = await signUp(server());
    await overrun(
      (index) =>
        request(server())
          .post('/api/v1/user/api-keys')
          .auth(owner.token, { type: 'bearer' })
          .send({ name: `key ${index}` }),
      LIMITS.QUOTA_API_KEYS,
      /^Quota exceeded: an organization may have at most 3 API keys, archived ones included \(api_keys, QUOTA_API_KEYS\)$/,
      () => orgRows('api_keys', owner),
    );
    const [key] = await services.db.dataSource.query<{ id: number }[]>(
      'SELECT id FROM api_keys WHERE organization_id = $1 LIMIT 1',
      [owner.user.organization_id],
    );
    expect(
      (await request(server()).delete(`/api/v1/user/api-keys/${key?.id}`).auth(owner.token, { type: 'bearer' })).status,
    ).toBe(200);
    const after = await request(server())
      .post('/api/v1/user/api-keys')
      .auth(owner.token, { type: 'bearer' })
      .send({ name: 'again' });
    expect(after.status).toBe(409);
  });

  it('contact lists (QUOTA_CAMPAIGN_SOURCES), uploaded at once', async () => {
    const owner = await signUp(server());
    await overrun(
      (index) =>
        request(server())
          .post(`/api/v1/campaign/sources?file_name=list-${index}.csv`)
          .auth(owner.token, { type: 'bearer' })
          .set('Content-Type', 'text/csv')
          .send(`phone_number,first_name\n+1415555${String(150 + index).padStart(4, '0')},Ada\n`),
      LIMITS.QUOTA_CAMPAIGN_SOURCES,
      /^Quota exceeded: an organization may have at most 2 contact lists \(campaign sources\) \(campaign_sources, QUOTA_CAMPAIGN_SOURCES\)$/,
      () => orgRows('campaign_sources', owner),
    );
    // The refused uploads' contacts are gone with them.
    expect(
      await count(
        `SELECT count(*)::int AS count FROM campaign_contacts c JOIN campaign_sources s ON s.id = c.source_id
          WHERE s.organization_id = $1`,
        [owner.user.organization_id],
      ),
    ).toBe(LIMITS.QUOTA_CAMPAIGN_SOURCES);
    expect(
      await count(
        `SELECT count(*)::int AS count FROM campaign_contacts c
          WHERE NOT EXISTS (SELECT 1 FROM campaign_sources s WHERE s.id = c.source_id)`,
        [],
      ),
    ).toBe(0);
  });

  it('do-not-call numbers (QUOTA_DO_NOT_CALL_NUMBERS), added at once', async () => {
    const owner = await signUp(server());
    await overrun(
      (index) =>
        request(server())
          .post('/api/v1/organizations/do-not-call')
          .auth(owner.token, { type: 'bearer' })
          .send({ phone_number: `+1415555${String(3000 + index)}` }),
      LIMITS.QUOTA_DO_NOT_CALL_NUMBERS,
      /^Quota exceeded: an organization may have at most 3 numbers on its do-not-call list \(do_not_call_numbers, QUOTA_DO_NOT_CALL_NUMBERS\)$/,
      () => orgRows('do_not_call_numbers', owner),
    );
  });

  it('campaigns (QUOTA_CAMPAIGNS)', async () => {
    const org = await callingOrganization(server());
    const sourceId = await insertContactSource(services.db.dataSource, org.owner.user.organization_id, [
      { phone_number: '+14155550101', first_name: 'Ada' },
    ]);
    await overrun(
      (index) =>
        request(server())
          .post('/api/v1/campaign/create')
          .auth(org.owner.token, { type: 'bearer' })
          .send({ name: `Campaign ${index}`, workflow_id: org.agent.id, source_type: 'csv', source_id: sourceId }),
      LIMITS.QUOTA_CAMPAIGNS,
      /^Quota exceeded: an organization may have at most 2 campaigns \(campaigns, QUOTA_CAMPAIGNS\)$/,
      () => orgRows('campaigns', org.owner),
    );
  });

  it('redials (QUOTA_CAMPAIGNS and QUOTA_CAMPAIGN_SOURCES): neither the campaign nor its contact-list copy is stored', async () => {
    /** An organization with `sources` contact lists and a finished campaign over the first, with one busy contact. */
    const finishedCampaign = async (sources: number) => {
      const org = await callingOrganization(server());
      const sourceIds: string[] = [];
      for (let index = 0; index < sources; index += 1) {
        sourceIds.push(
          await insertContactSource(services.db.dataSource, org.owner.user.organization_id, [
            { phone_number: '+14155550101', first_name: 'Ada' },
          ]),
        );
      }
      const create = () =>
        request(server())
          .post('/api/v1/campaign/create')
          .auth(org.owner.token, { type: 'bearer' })
          .send({ name: 'Parent', workflow_id: org.agent.id, source_type: 'csv', source_id: sourceIds[0] });
      const parent = await create();
      expect(parent.status).toBe(201);
      const [contactId] = await contactIds(services.db.dataSource, sourceIds[0] ?? '');
      await insertAttempt(services.db.dataSource, {
        campaignId: parent.body.id as number,
        contactId: contactId ?? '',
        attempt: 1,
        outcome: 'busy',
      });
      await services.db.dataSource.query("UPDATE campaigns SET state = 'completed' WHERE id = $1", [parent.body.id]);
      const redial = () =>
        request(server())
          .post(`/api/v1/campaign/${parent.body.id}/redial`)
          .auth(org.owner.token, { type: 'bearer' })
          .send({ retry_on_busy: true });
      return { org, create, redial };
    };

    const fullOfCampaigns = await finishedCampaign(1);
    expect((await fullOfCampaigns.create()).status).toBe(201);
    const refused = await fullOfCampaigns.redial();
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/at most 2 campaigns/);
    expect(await orgRows('campaigns', fullOfCampaigns.org.owner)).toBe(LIMITS.QUOTA_CAMPAIGNS);
    expect(await orgRows('campaign_sources', fullOfCampaigns.org.owner)).toBe(1);

    const fullOfSources = await finishedCampaign(LIMITS.QUOTA_CAMPAIGN_SOURCES);
    const noRoom = await fullOfSources.redial();
    expect(noRoom.status).toBe(409);
    expect(noRoom.body.detail).toMatch(/at most 2 contact lists/);
    expect(await orgRows('campaign_sources', fullOfSources.org.owner)).toBe(LIMITS.QUOTA_CAMPAIGN_SOURCES);
    expect(await orgRows('campaigns', fullOfSources.org.owner)).toBe(1);
  });

  it("counts only the organization's own rows: another organization still creates freely", async () => {
    const full = await signUp(server());
    for (let index = 0; index < LIMITS.QUOTA_TELEPHONY_CONFIGURATIONS; index += 1) {
      await createTelephonyConfig(server(), full.token);
    }
    const other = await signUp(server());
    await createTelephonyConfig(server(), other.token);
  });
});

/** `{"a":{"a":...}}`, `levels` objects deep. */
const nested = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: true };
  for (let level = 1; level < levels; level += 1) value = { a: value };
  return value;
};

describe('over-deep JSON in every other free-form field answers 422 and stores nothing', () => {
  const tooDeep = nested(JSON_LIMITS.depth + 1);
  let owner: SignedUp;
  let agentId: number;
  let configId: number;
  let numberId: number;

  beforeAll(async () => {
    owner = await signUp(server());
    agentId = (await createAgent(server(), owner.token)).id;
    configId = (await createTelephonyConfig(server(), owner.token)).id;
    const number = await request(server())
      .post(`/api/v1/organizations/telephony-configs/${configId}/phone-numbers`)
      .auth(owner.token, { type: 'bearer' })
      .send({ address: '+14155550170', extra_metadata: nested(JSON_LIMITS.depth) });
    expect(number.status).toBe(201);
    numberId = number.body.id as number;
  });

  const stored = async () => ({
    agents: await orgRows('agents', owner),
    versions: await count('SELECT count(*)::int AS count FROM agent_versions WHERE agent_id = $1', [agentId]),
    numbers: await orgRows('phone_numbers', owner),
    metadata: await services.db.dataSource.query('SELECT extra_metadata::text FROM phone_numbers WHERE id = $1', [
      numberId,
    ]),
    configs: await services.db.dataSource.query('SELECT credentials FROM telephony_configurations WHERE id = $1', [
      configId,
    ]),
  });

  const refused = async (send: () => request.Test, depth: number = JSON_LIMITS.depth) => {
    const before = await stored();
    const res = await send();
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain(`nests deeper than ${depth} levels`);
    expect(await stored()).toEqual(before);
  };

  const definitionWith = (extra: Record<string, unknown>) => {
    const definition = sampleDefinition();
    const [first, ...rest] = definition.nodes;
    return { ...definition, nodes: [{ ...first, ...extra }, ...rest] };
  };

  it('workflow_configurations, on create and update', async () => {
    await refused(() =>
      request(server())
        .post('/api/v1/workflow/create/definition')
        .auth(owner.token, { type: 'bearer' })
        .send({ name: 'Deep', workflow_definition: sampleDefinition(), workflow_configurations: { extra: tooDeep } }),
    );
    await refused(() =>
      request(server())
        .put(`/api/v1/workflow/${agentId}`)
        .auth(owner.token, { type: 'bearer' })
        .send({ workflow_configurations: { max_call_duration: 60, extra: tooDeep } }),
    );
  });

  it("a definition's editor keys (node and top level), on create, update and validate", async () => {
    const deep = nested(JSON_LIMITS.definitionDepth);
    await refused(
      () =>
        request(server())
          .post('/api/v1/workflow/create/definition')
          .auth(owner.token, { type: 'bearer' })
          .send({ name: 'Deep', workflow_definition: definitionWith({ width: deep }) }),
      JSON_LIMITS.definitionDepth,
    );
    await refused(
      () =>
        request(server())
          .put(`/api/v1/workflow/${agentId}`)
          .auth(owner.token, { type: 'bearer' })
          .send({ workflow_definition: { ...sampleDefinition(), viewport: deep } }),
      JSON_LIMITS.definitionDepth,
    );
    await refused(
      () =>
        request(server())
          .post(`/api/v1/workflow/${agentId}/validate`)
          .auth(owner.token, { type: 'bearer' })
          .send({ workflow_definition: { ...sampleDefinition(), viewport: deep } }),
      JSON_LIMITS.definitionDepth,
    );
  });

  it("a phone number's extra_metadata, on create and update", async () => {
    await refused(() =>
      request(server())
        .post(`/api/v1/organizations/telephony-configs/${configId}/phone-numbers`)
        .auth(owner.token, { type: 'bearer' })
        .send({ address: '+14155550171', extra_metadata: tooDeep }),
    );
    await refused(() =>
      request(server())
        .put(`/api/v1/organizations/telephony-configs/${configId}/phone-numbers/${numberId}`)
        .auth(owner.token, { type: 'bearer' })
        .send({ extra_metadata: tooDeep }),
    );
  });

  it("a telephony configuration's update", async () => {
    await refused(() =>
      request(server())
        .put(`/api/v1/organizations/telephony-configs/${configId}`)
        .auth(owner.token, { type: 'bearer' })
        .send({ config: { provider: 'simulator', extra: tooDeep } }),
    );
  });

  it('within the limits is accepted', async () => {
    const res = await request(server())
      .put(`/api/v1/workflow/${agentId}`)
      .auth(owner.token, { type: 'bearer' })
      .send({
        workflow_configurations: { extra: nested(JSON_LIMITS.depth - 1) },
        workflow_definition: definitionWith({ width: nested(JSON_LIMITS.definitionDepth - 3) }),
      });
    expect(res.status).toBe(200);
  });
});
