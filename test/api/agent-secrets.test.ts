import request from 'supertest';
import { openStoredAgentSecrets, sealStoredAgentSecrets } from '../../domain/agents/agent-secrets';
import { Secrets } from '../../telephony/secrets';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { createAgent, sampleDefinition } from '../helpers/agents';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));

const HEADER_TOKEN = 'Bearer crm_live_5e1f9a0c7b3d4e2f';
const QA_KEY = 'sk-qa-0123456789abcdefghij';
const masked = (secret: string) => `${'*'.repeat(secret.length - 4)}${secret.slice(-4)}`;

let app: TestServer;
let owner: SignedUp;
beforeAll(async () => {
  app = services.server({ SECRETS_KEY: TEST_SECRETS_KEY });
  owner = await signUp(app);
});

const webhook = (headers: { key: string; value: string }[], url = 'https://crm.example.com/hooks/calls') => ({
  id: 'crm',
  type: 'webhook',
  position: { x: 400, y: 0 },
  data: { name: 'CRM', endpoint_url: url, custom_headers: headers },
});
const qa = (key: string, endpoint = 'https://llm.example.com/v1') => ({
  id: 'qa',
  type: 'qa',
  position: { x: 400, y: 100 },
  data: { name: 'QA', qa_provider: 'openai', qa_api_key: key, qa_endpoint: endpoint },
});
const withNodes = (...nodes: object[]) => {
  const base = sampleDefinition();
  return { ...base, nodes: [...base.nodes, ...nodes] };
};
type Node = { id: string; data: Record<string, unknown> };
const nodeOf = (definition: { nodes: Node[] }, id: string) => definition.nodes.find((node) => node.id === id);

/** The agent's current version as PostgreSQL returns it, as text. */
const storedVersion = async (agentId: number) => {
  const [row] = await services.db.dataSource.query<{ id: number; text: string }[]>(
    `SELECT v.id, v.workflow_definition::text AS text
       FROM agents a JOIN agent_versions v ON v.id = a.current_definition_id WHERE a.id = $1`,
    [agentId],
  );
  if (!row) throw new Error(`agent ${agentId} has no version`);
  return { id: row.id, text: row.text, definition: JSON.parse(row.text) as { nodes: Node[] } };
};

const put = (agentId: number, definition: object) =>
  request(app)
    .put(`/api/v1/workflow/${agentId}`)
    .auth(owner.token, { type: 'bearer' })
    .send({ workflow_definition: definition });

describe('secrets in agent definitions', () => {
  it('seals header values and the QA key at rest and masks them in every answer', async () => {
    const definition = withNodes(
      webhook([
        { key: 'Authorization', value: HEADER_TOKEN },
        { key: 'X-Customer', value: 'ref {{customer_ref}}' },
      ]),
      qa(QA_KEY),
    );
    const agent = await createAgent(app, owner.token, definition);
    expect(nodeOf(agent.workflow_definition, 'crm')?.data.custom_headers).toEqual([
      { key: 'Authorization', value: masked(HEADER_TOKEN) },
      { key: 'X-Customer', value: masked('ref {{customer_ref}}') },
    ]);
    expect(nodeOf(agent.workflow_definition, 'qa')?.data.qa_api_key).toBe(masked(QA_KEY));

    const stored = await storedVersion(agent.id);
    for (const secret of [HEADER_TOKEN, QA_KEY, 'crm_live', 'customer_ref']) expect(stored.text).not.toContain(secret);
    const [authorization] = nodeOf(stored.definition, 'crm')?.data.custom_headers as { value: { enc: string } }[];
    expect(secrets.open(authorization?.value.enc ?? '')).toBe(HEADER_TOKEN);

    // A read key, the versions list and the validation of the stored definition show masks only.
    const key = await request(app)
      .post('/api/v1/user/api-keys')
      .auth(owner.token, { type: 'bearer' })
      .send({ name: 'reader', scope: 'read' });
    const read = await request(app).get(`/api/v1/workflow/fetch/${agent.id}`).set('X-API-Key', key.body.api_key);
    expect(read.status).toBe(200);
    const versions = await request(app).get(`/api/v1/workflow/${agent.id}/versions`).set('X-API-Key', key.body.api_key);
    for (const body of [JSON.stringify(read.body), JSON.stringify(versions.body)]) {
      for (const secret of [HEADER_TOKEN, QA_KEY, 'crm_live', 'customer_ref']) expect(body).not.toContain(secret);
    }
    expect(nodeOf(read.body.workflow_definition, 'crm')?.data.custom_headers).toEqual(
      nodeOf(agent.workflow_definition, 'crm')?.data.custom_headers,
    );
    const validated = await request(app)
      .post(`/api/v1/workflow/${agent.id}/validate`)
      .auth(owner.token, { type: 'bearer' })
      .send({});
    expect(validated.body).toEqual({ is_valid: true, errors: [] });
  });

  it('keeps the stored secrets when an answer is sent back, making no new version', async () => {
    const agent = await createAgent(
      app,
      owner.token,
      withNodes(webhook([{ key: 'Authorization', value: HEADER_TOKEN }]), qa(QA_KEY)),
    );
    const before = await storedVersion(agent.id);

    const sentBack = await put(agent.id, agent.workflow_definition);
    expect(sentBack.status).toBe(200);
    expect((await storedVersion(agent.id)).text).toBe(before.text);

    // The same secrets sent again in clear change nothing either.
    await put(agent.id, withNodes(webhook([{ key: 'Authorization', value: HEADER_TOKEN }]), qa(QA_KEY)));
    expect((await storedVersion(agent.id)).id).toBe(before.id);

    // Another prompt: a new version, the secrets carried over as they were sealed.
    const edited = structuredClone(agent.workflow_definition);
    (nodeOf(edited, 'start') as Node).data.prompt = 'Hello again {{first_name}}.';
    expect((await put(agent.id, edited)).status).toBe(200);
    const after = await storedVersion(agent.id);
    expect(after.id).not.toBe(before.id);
    expect(nodeOf(after.definition, 'crm')?.data.custom_headers).toEqual(
      nodeOf(before.definition, 'crm')?.data.custom_headers,
    );
    expect(nodeOf(after.definition, 'qa')?.data.qa_api_key).toEqual(nodeOf(before.definition, 'qa')?.data.qa_api_key);

    // A new value replaces the secret.
    await put(agent.id, withNodes(webhook([{ key: 'Authorization', value: 'Bearer rotated-7777' }]), qa(QA_KEY)));
    const [header] = nodeOf((await storedVersion(agent.id)).definition, 'crm')?.data.custom_headers as {
      value: { enc: string };
    }[];
    expect(secrets.open(header?.value.enc ?? '')).toBe('Bearer rotated-7777');
  });

  it('refuses a masked secret whose destination changed (422 at the value), storing nothing', async () => {
    const agent = await createAgent(
      app,
      owner.token,
      withNodes(webhook([{ key: 'Authorization', value: HEADER_TOKEN }]), qa(QA_KEY)),
    );
    const before = await storedVersion(agent.id);
    const moved = structuredClone(agent.workflow_definition);
    (nodeOf(moved, 'crm') as Node).data.endpoint_url = 'https://attacker.example.net/collect';
    (nodeOf(moved, 'qa') as Node).data.qa_endpoint = 'https://attacker.example.net/v1';
    const res = await put(agent.id, moved);
    expect(res.status).toBe(422);
    expect((res.body.detail as { loc: unknown[] }[]).map((issue) => issue.loc)).toEqual([
      ['body', 'workflow_definition', 'nodes', 3, 'data', 'custom_headers', 0, 'value'],
      ['body', 'workflow_definition', 'nodes', 4, 'data', 'qa_api_key'],
    ]);
    expect(res.body.detail[0].type).toBe('secret_required');
    expect((await storedVersion(agent.id)).text).toBe(before.text);
  });
});

describe('sealing the secrets of versions stored before', () => {
  it('seals clear header values and QA keys in place, and the reverse opens them', async () => {
    const agent = await createAgent(app, owner.token);
    const clear = withNodes(
      webhook([
        { key: 'Authorization', value: HEADER_TOKEN },
        { key: 'X-Empty', value: '' },
      ]),
      qa(QA_KEY),
    );
    const { id } = await storedVersion(agent.id);
    const query = (sql: string, parameters: unknown[]) => services.db.dataSource.query(sql, parameters);
    await query('UPDATE agent_versions SET workflow_definition = $2 WHERE id = $1', [id, JSON.stringify(clear)]);

    expect(await sealStoredAgentSecrets(query, () => secrets)).toBeGreaterThanOrEqual(1);
    const sealed = await storedVersion(agent.id);
    expect(sealed.text).not.toContain(HEADER_TOKEN);
    expect(sealed.text).not.toContain(QA_KEY);
    expect(nodeOf(sealed.definition, 'crm')?.data.custom_headers).toEqual([
      { key: 'Authorization', value: { enc: expect.stringMatching(/^v1\./) } },
      { key: 'X-Empty', value: '' },
    ]);
    // Nothing left to seal: a second run changes nothing and never needs the key.
    expect(
      await sealStoredAgentSecrets(query, () => {
        throw new Error('the key is not needed');
      }),
    ).toBe(0);

    // What the API answers for the migrated version: masks.
    const shown = await request(app).get(`/api/v1/workflow/fetch/${agent.id}`).auth(owner.token, { type: 'bearer' });
    expect(nodeOf(shown.body.workflow_definition, 'qa')?.data.qa_api_key).toBe(masked(QA_KEY));

    await openStoredAgentSecrets(query, () => secrets);
    expect((await storedVersion(agent.id)).definition).toEqual(clear);
  });
});
