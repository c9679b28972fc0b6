import request from 'supertest';
import { resolveTrigger } from '../../domain/agents/triggers';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { createAgent, insertRun, sampleDefinition } from '../helpers/agents';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

let app: TestServer;
let owner: SignedUp;

beforeAll(async () => {
  app = services.server();
  owner = await signUp(app);
});

const get = (path: string) => request(app).get(`/api/v1${path}`).auth(owner.token, { type: 'bearer' });
const put = (path: string, body: object) =>
  request(app).put(`/api/v1${path}`).auth(owner.token, { type: 'bearer' }).send(body);

const triggerNode = (trigger_path?: string) => ({
  id: 'api',
  type: 'trigger',
  position: { x: 0, y: 0 },
  data: { name: 'API', ...(trigger_path ? { trigger_path } : {}) },
});

describe('POST /api/v1/workflow/create/definition', () => {
  it('creates an agent with version 1 published and answers it in full', async () => {
    const res = await request(app)
      .post('/api/v1/workflow/create/definition')
      .auth(owner.token, { type: 'bearer' })
      .send({ name: 'Reminder', workflow_definition: sampleDefinition() });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'Reminder',
      status: 'active',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      workflow_definition: {
        nodes: [
          expect.objectContaining({ id: 'start', type: 'startCall', data: expect.objectContaining({ name: 'Start' }) }),
          expect.objectContaining({ id: 'talk' }),
          expect.objectContaining({ id: 'end' }),
        ],
        edges: sampleDefinition().edges,
      },
      current_definition_id: expect.any(Number),
      template_context_variables: {},
      call_disposition_codes: { disposition_codes: [] },
      total_runs: 0,
      workflow_configurations: {},
      version_number: 1,
      version_status: 'published',
      workflow_uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect((await get(`/workflow/fetch/${res.body.id}`)).body).toEqual(res.body);
  });
});

describe('GET /api/v1/workflow/fetch', () => {
  it('lists agents newest first, with a status filter', async () => {
    const user = await signUp(app);
    const first = await createAgent(app, user.token, sampleDefinition(), 'first');
    const second = await createAgent(app, user.token, sampleDefinition(), 'second');
    await request(app)
      .put(`/api/v1/workflow/${first.id}/status`)
      .auth(user.token, { type: 'bearer' })
      .send({ status: 'archived' });
    const list = (query = '') =>
      request(app).get(`/api/v1/workflow/fetch${query}`).auth(user.token, { type: 'bearer' });

    const all = await list();
    expect(all.status).toBe(200);
    expect(all.body).toEqual([
      {
        id: second.id,
        name: 'second',
        status: 'active',
        created_at: expect.any(String),
        total_runs: 0,
        workflow_uuid: second.workflow_uuid,
        current_definition_id: second.current_definition_id,
        version_number: 1,
      },
      expect.objectContaining({ id: first.id, status: 'archived' }),
    ]);
    expect(((await list('?status=active')).body as { id: number }[]).map((agent) => agent.id)).toEqual([second.id]);
    expect(((await list('?status=archived')).body as { id: number }[]).map((agent) => agent.id)).toEqual([first.id]);
  });
});

describe('PUT /api/v1/workflow/{workflow_id}', () => {
  it('publishes a new version on each definition, configuration or variables change and keeps the old ones', async () => {
    const agent = await createAgent(app, owner.token);
    const changed = sampleDefinition('Hi {{first_name}}, a new prompt.');

    const v2 = await put(`/workflow/${agent.id}`, { workflow_definition: changed });
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({ version_number: 2, version_status: 'published' });
    expect(v2.body.current_definition_id).not.toBe(agent.current_definition_id);

    const v3 = await put(`/workflow/${agent.id}`, { workflow_configurations: { max_call_duration: 600 } });
    expect(v3.body).toMatchObject({ version_number: 3, workflow_configurations: { max_call_duration: 600 } });
    const v4 = await put(`/workflow/${agent.id}`, { template_context_variables: { first_name: 'Test' } });
    expect(v4.body).toMatchObject({ version_number: 4, template_context_variables: { first_name: 'Test' } });
    expect(v4.body.workflow_definition.nodes[0].data.prompt).toBe('Hi {{first_name}}, a new prompt.');

    const versions = await get(`/workflow/${agent.id}/versions`);
    expect(versions.status).toBe(200);
    expect(
      (versions.body as { version_number: number; status: string }[]).map((v) => [v.version_number, v.status]),
    ).toEqual([
      [4, 'published'],
      [3, 'archived'],
      [2, 'archived'],
      [1, 'archived'],
    ]);
    expect(versions.body[3].id).toBe(agent.current_definition_id);
    expect(versions.body[3].workflow_definition.nodes[0].data.prompt).toBe(sampleDefinition().nodes[0]?.data.prompt);
  });

  it('makes no version for a name change or an unchanged definition', async () => {
    const agent = await createAgent(app, owner.token);
    const renamed = await put(`/workflow/${agent.id}`, { name: 'Renamed', workflow_definition: sampleDefinition() });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', version_number: 1 });
    expect(renamed.body.current_definition_id).toBe(agent.current_definition_id);
    expect((await get(`/workflow/${agent.id}/versions`)).body).toHaveLength(1);
  });

  it('gives concurrent updates distinct version numbers', async () => {
    const agent = await createAgent(app, owner.token);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        put(`/workflow/${agent.id}`, { workflow_definition: sampleDefinition(`Prompt number ${index}`) }),
      ),
    );
    expect(answers.map((res) => res.status)).toEqual(Array(8).fill(200));
    const versions = (await get(`/workflow/${agent.id}/versions`)).body as { version_number: number; status: string }[];
    expect(versions.map((v) => v.version_number)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(versions.filter((v) => v.status === 'published')).toHaveLength(1);
    expect((await get(`/workflow/fetch/${agent.id}`)).body.version_number).toBe(9);
  });

  it('keeps the definition a run recorded readable after later versions', async () => {
    const agent = await createAgent(app, owner.token);
    const runId = await insertRun(services.db.dataSource, {
      workflowId: agent.id,
      definitionId: agent.current_definition_id,
      organizationId: owner.user.organization_id,
    });
    await put(`/workflow/${agent.id}`, { workflow_definition: sampleDefinition('Changed') });
    const run = await get(`/workflow/${agent.id}/runs/${runId}`);
    expect(run.body.definition_id).toBe(agent.current_definition_id);
    const versions = (await get(`/workflow/${agent.id}/versions`)).body as { id: number; status: string }[];
    expect(versions.find((v) => v.id === run.body.definition_id)).toMatchObject({ status: 'archived' });
    expect((await get(`/workflow/fetch/${agent.id}`)).body.total_runs).toBe(1);
  });
});

describe('PUT /api/v1/workflow/{workflow_id}/status', () => {
  it('archives and restores an agent, keeping its definition', async () => {
    const agent = await createAgent(app, owner.token);
    const archived = await put(`/workflow/${agent.id}/status`, { status: 'archived' });
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ status: 'archived', version_number: 1 });
    const restored = await put(`/workflow/${agent.id}/status`, { status: 'active' });
    expect(restored.body).toMatchObject({ status: 'active', workflow_definition: agent.workflow_definition });
  });
});

describe('trigger nodes', () => {
  it('get a trigger path minted, indexed, and kept when a later definition omits it', async () => {
    const definition = sampleDefinition();
    const agent = await createAgent(app, owner.token, { ...definition, nodes: [...definition.nodes, triggerNode()] });
    const path = agent.workflow_definition.nodes[3]?.data.trigger_path as string;
    expect(path).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(path).not.toBe(agent.workflow_uuid);
    expect(await resolveTrigger(services.db.dataSource, path)).toEqual({
      agentId: agent.id,
      organizationId: owner.user.organization_id,
    });
    expect(await resolveTrigger(services.db.dataSource, path.toUpperCase())).toMatchObject({ agentId: agent.id });

    const resent = await put(`/workflow/${agent.id}`, {
      workflow_definition: { ...definition, nodes: [...definition.nodes, triggerNode()] },
    });
    expect(resent.body.version_number).toBe(1);
    expect(resent.body.workflow_definition.nodes[3].data.trigger_path).toBe(path);

    const removed = await put(`/workflow/${agent.id}`, { workflow_definition: definition });
    expect(removed.body.version_number).toBe(2);
    expect(await resolveTrigger(services.db.dataSource, path)).toBeNull();
  });

  it('keep a given trigger path and resolve nothing for unknown or malformed paths', async () => {
    const given = '6f1c1a52-8a4e-4c55-9c1e-3f0a4b5f2a10';
    const definition = sampleDefinition();
    const agent = await createAgent(app, owner.token, {
      ...definition,
      nodes: [...definition.nodes, triggerNode(given)],
    });
    expect(agent.workflow_definition.nodes[3]?.data.trigger_path).toBe(given);
    expect(await resolveTrigger(services.db.dataSource, given)).toMatchObject({ agentId: agent.id });
    expect(await resolveTrigger(services.db.dataSource, '00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(await resolveTrigger(services.db.dataSource, 'not-a-uuid')).toBeNull();
  });
});

describe('POST /api/v1/workflow/{workflow_id}/validate', () => {
  it('reports a valid current definition, and the problems of a given one without saving it', async () => {
    const agent = await createAgent(app, owner.token);
    const validate = (body: object) =>
      request(app).post(`/api/v1/workflow/${agent.id}/validate`).auth(owner.token, { type: 'bearer' }).send(body);

    expect((await validate({})).body).toEqual({ is_valid: true, errors: [] });

    const broken = sampleDefinition();
    broken.edges.push({ id: 'e3', source: 'end', target: 'ghost', data: { label: 'x', condition: 'y' } });
    const report = await validate({ workflow_definition: broken });
    expect(report.status).toBe(200);
    expect(report.body).toEqual({
      is_valid: false,
      errors: [
        {
          loc: ['workflow_definition', 'edges', 2, 'source'],
          msg: 'A endCall node cannot have outgoing edges',
          type: 'value_error',
        },
        {
          loc: ['workflow_definition', 'edges', 2, 'target'],
          msg: "Edge target 'ghost' is not a node",
          type: 'value_error',
        },
      ],
    });
    expect((await get(`/workflow/${agent.id}/versions`)).body).toHaveLength(1);
  });
});

describe('POST /api/v1/workflow/create/template without a language model', () => {
  it('builds a valid start → agent → end agent from the two texts', async () => {
    const body = { use_case: 'Appointment reminders', activity_description: 'Remind the patient of the appointment.' };
    const res = await request(app)
      .post('/api/v1/workflow/create/template')
      .auth(owner.token, { type: 'bearer' })
      .send(body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Appointment reminders', version_number: 1, status: 'active' });
    expect((res.body.workflow_definition.nodes as { type: string }[]).map((node) => node.type)).toEqual([
      'startCall',
      'agentNode',
      'endCall',
    ]);
    expect(res.body.workflow_definition.nodes[1].data.prompt).toBe(body.activity_description);
    expect(res.body.workflow_definition.nodes[0].data.prompt).toContain('You are calling');
    const inbound = await request(app)
      .post('/api/v1/workflow/create/template')
      .auth(owner.token, { type: 'bearer' })
      .send({ ...body, call_type: 'inbound' });
    expect(inbound.body.workflow_definition.nodes[0].data.prompt).toContain('answering an incoming call');
  });
});
