import request from 'supertest';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { createAgent, sampleDefinition } from '../helpers/agents';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

let app: TestServer;
let owner: SignedUp;

beforeAll(async () => {
  app = services.server();
  owner = await signUp(app);
});

const send = (method: 'post' | 'put', path: string, body: object) =>
  request(app)[method](`/api/v1${path}`).auth(owner.token, { type: 'bearer' }).send(body);

describe('an invalid definition', () => {
  it('answers 422 with loc pointing into workflow_definition', async () => {
    const definition = sampleDefinition();
    const nodes = definition.nodes.map((node, index) => (index === 2 ? { ...node, data: { name: 'End' } } : node));
    const res = await send('post', '/workflow/create/definition', {
      name: 'Broken',
      workflow_definition: { ...definition, nodes },
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [
        {
          loc: ['body', 'workflow_definition', 'nodes', 2, 'data', 'prompt'],
          msg: 'Invalid input: expected string, received undefined',
          type: 'missing',
        },
      ],
    });
  });

  it('answers 422 for a broken graph rule, as a value_error', async () => {
    const definition = sampleDefinition();
    definition.edges.push({ id: 'e3', source: 'end', target: 'talk', data: { label: 'Again', condition: 'Never' } });
    const res = await send('post', '/workflow/create/definition', { name: 'Loop', workflow_definition: definition });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      detail: [
        {
          loc: ['body', 'workflow_definition', 'edges', 2, 'source'],
          msg: 'A endCall node cannot have outgoing edges',
          type: 'value_error',
        },
      ],
    });
  });

  it('on PUT, answers 422 and makes no version', async () => {
    const agent = await createAgent(app, owner.token);
    const res = await send('put', `/workflow/${agent.id}`, { workflow_definition: { nodes: [], edges: [] } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'workflow_definition', 'nodes']);
    const versions = await request(app)
      .get(`/api/v1/workflow/${agent.id}/versions`)
      .auth(owner.token, { type: 'bearer' });
    expect(versions.body).toHaveLength(1);
  });

  it('rejects unknown workflow_configurations values, and drops nulls', async () => {
    const agent = await createAgent(app, owner.token);
    const bad = await send('put', `/workflow/${agent.id}`, { workflow_configurations: { max_call_duration: 5000 } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'workflow_configurations', 'max_call_duration']);
    const ok = await send('put', `/workflow/${agent.id}`, {
      workflow_configurations: { max_call_duration: 120, dictionary: null, custom_flag: true },
    });
    expect(ok.body.workflow_configurations).toEqual({ max_call_duration: 120, custom_flag: true });
  });
});

describe('an unknown agent', () => {
  const missing = 987654;
  it.each([
    ['get', `/workflow/fetch/${missing}`, undefined],
    ['put', `/workflow/${missing}`, { name: 'x' }],
    ['put', `/workflow/${missing}/status`, { status: 'archived' }],
    ['get', `/workflow/${missing}/versions`, undefined],
    ['post', `/workflow/${missing}/validate`, {}],
    ['get', `/workflow/${missing}/runs`, undefined],
  ] as const)('%s %s answers 404 naming the id', async (method, path, body) => {
    const req = request(app)[method](`/api/v1${path}`).auth(owner.token, { type: 'bearer' });
    const res = body ? await req.send(body) : await req;
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: `Workflow with id ${missing} not found` });
  });

  it('answers 404 "Workflow run not found" for an unknown run', async () => {
    const agent = await createAgent(app, owner.token);
    const res = await request(app)
      .get(`/api/v1/workflow/${agent.id}/runs/${missing}`)
      .auth(owner.token, { type: 'bearer' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Workflow run not found' });
  });
});

describe('a trigger path another agent holds', () => {
  it('answers 409, across organizations too, and saves nothing', async () => {
    const path = 'a3b1c2d4-1111-4222-8333-444455556666';
    const definition = sampleDefinition();
    const withTrigger = {
      ...definition,
      nodes: [...definition.nodes, { id: 'api', type: 'trigger', data: { name: 'API', trigger_path: path } }],
    };
    await createAgent(app, owner.token, withTrigger);
    const other = await signUp(app);

    const res = await request(app)
      .post('/api/v1/workflow/create/definition')
      .auth(other.token, { type: 'bearer' })
      .send({ name: 'Copy', workflow_definition: withTrigger });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: `Trigger path ${path} is already used by another agent` });
    const listed = await request(app).get('/api/v1/workflow/fetch').auth(other.token, { type: 'bearer' });
    expect(listed.body).toEqual([]);

    const own = await createAgent(app, other.token);
    const update = await request(app)
      .put(`/api/v1/workflow/${own.id}`)
      .auth(other.token, { type: 'bearer' })
      .send({ workflow_definition: withTrigger });
    expect(update.status).toBe(409);
    const after = await request(app).get(`/api/v1/workflow/fetch/${own.id}`).auth(other.token, { type: 'bearer' });
    expect(after.body.version_number).toBe(1);
  });
});

describe('request validation', () => {
  it('rejects an unknown status value', async () => {
    const agent = await createAgent(app, owner.token);
    const res = await send('put', `/workflow/${agent.id}/status`, { status: 'deleted' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'status'], type: 'enum' });
    const list = await request(app).get('/api/v1/workflow/fetch?status=gone').auth(owner.token, { type: 'bearer' });
    expect(list.status).toBe(422);
  });

  it('requires use_case and activity_description on create/template', async () => {
    const res = await send('post', '/workflow/create/template', { use_case: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'activity_description'], type: 'missing' }),
    ]);
  });
});
