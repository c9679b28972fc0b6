import request from 'supertest';
import { GRAPH_LIMITS, JSON_LIMITS, TEXT_LIMITS } from '../../domain/limits';
import { renderTemplate } from '../../domain/agents/templates';
import { createAgent, sampleDefinition } from '../helpers/agents';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { insertContactSource } from '../helpers/campaign-api';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const server = () => services.server({ SECRETS_KEY: TEST_SECRETS_KEY });

let org: CallingOrganization;

beforeAll(async () => {
  org = await callingOrganization(server());
});

/** `{"a":{"a":...}}`, `levels` objects deep. */
const nested = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: true };
  for (let level = 1; level < levels; level += 1) value = { a: value };
  return value;
};

describe('a template that makes a backtracking regular expression run for minutes', () => {
  // `{{a|`, blanks, and no closing braces: a backtracking placeholder pattern needs seconds for a few
  // thousand blanks and about 100 s for 8,000; this template has four times as many.
  const attack = `{{a|${' '.repeat(TEXT_LIMITS.prompt - 10)}x`;

  it('is stored and used for a campaign in seconds, not minutes', async () => {
    const agent = await createAgent(server(), org.owner.token, sampleDefinition(attack), 'Hostile prompt');
    const sourceId = await insertContactSource(services.db.dataSource, org.owner.user.organization_id, [
      { phone_number: '+14155550101', first_name: 'Ada' },
    ]);
    const started = Date.now();
    const res = await request(server())
      .post('/api/v1/campaign/create')
      .auth(org.owner.token, { type: 'bearer' })
      .send({ name: 'Hostile', workflow_id: agent.id, source_type: 'csv', source_id: sourceId });
    expect(res.status).toBe(201);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('renders in linear time on the worker and live-audio path', () => {
    const started = Date.now();
    expect(renderTemplate(`{{a|${' '.repeat(200_000)}x`)).toHaveLength(200_005);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('answers 422 once a prompt is longer than the limit', async () => {
    const res = await request(server())
      .post('/api/v1/workflow/create/definition')
      .auth(org.owner.token, { type: 'bearer' })
      .send({ name: 'Too long', workflow_definition: sampleDefinition('x'.repeat(TEXT_LIMITS.prompt + 1)) });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('prompt');
  });

  it('answers 422 for an over-long edge condition', async () => {
    const definition = sampleDefinition();
    const [first] = definition.edges;
    if (!first) throw new Error('the sample has edges');
    first.data.condition = 'y'.repeat(TEXT_LIMITS.text + 1);
    const res = await request(server())
      .post('/api/v1/workflow/create/definition')
      .auth(org.owner.token, { type: 'bearer' })
      .send({ name: 'Too long', workflow_definition: definition });
    expect(res.status).toBe(422);
  });
});

describe('post-call webhook nodes', () => {
  const webhookNode = (index: number) => ({
    id: `hook-${index}`,
    type: 'webhook',
    position: { x: 0, y: 0 },
    data: { name: `Hook ${index}`, endpoint_url: 'https://example.com/hook' },
  });
  const withHooks = (count: number) => {
    const definition = sampleDefinition();
    return { ...definition, nodes: [...definition.nodes, ...Array.from({ length: count }, (_, i) => webhookNode(i))] };
  };
  const save = (definition: object) =>
    request(server())
      .put(`/api/v1/workflow/${org.agent.id}`)
      .auth(org.owner.token, { type: 'bearer' })
      .send({ workflow_definition: definition });

  it(`answers 422 past ${GRAPH_LIMITS.webhookNodes} per agent: one call cannot fan out to many requests`, async () => {
    expect((await save(withHooks(GRAPH_LIMITS.webhookNodes))).status).toBe(200);
    const res = await save(withHooks(GRAPH_LIMITS.webhookNodes + 1));
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain(`At most ${GRAPH_LIMITS.webhookNodes} webhook nodes`);
  });

  it('answers 422 for too many custom headers or an over-long header value', async () => {
    const definition = withHooks(1);
    const hook = definition.nodes.at(-1) as ReturnType<typeof webhookNode> & { data: Record<string, unknown> };
    hook.data.custom_headers = Array.from({ length: GRAPH_LIMITS.customHeaders + 1 }, (_, i) => ({
      key: `x-h${i}`,
      value: 'v',
    }));
    expect((await save(definition)).status).toBe(422);
    hook.data.custom_headers = [{ key: 'x-long', value: 'v'.repeat(TEXT_LIMITS.text + 1) }];
    expect((await save(definition)).status).toBe(422);
  });
});

describe('deeply nested JSON', () => {
  const tooDeep = nested(JSON_LIMITS.depth + 1);

  it('as a call’s initial_context answers 422, never 500, and starts nothing', async () => {
    const before = await services.db.dataSource.query<{ count: string }[]>('SELECT count(*) FROM runs');
    const res = await request(server())
      .post(`/api/v1/public/agent/${org.triggerPath}`)
      .set('X-API-Key', org.apiKey)
      .send({ phone_number: '+14155550123', initial_context: nested(1_000) });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain(`deeper than ${JSON_LIMITS.depth}`);
    // Deeper still, the body parser itself gives up: still a 422.
    const deeper = await request(server())
      .post(`/api/v1/public/agent/${org.triggerPath}`)
      .set('X-API-Key', org.apiKey)
      .set('content-type', 'application/json')
      .send(`{"phone_number":"+14155550123","initial_context":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`);
    expect(deeper.status).toBe(422);
    const after = await services.db.dataSource.query<{ count: string }[]>('SELECT count(*) FROM runs');
    expect(after).toEqual(before);
  });

  it('as template_context_variables answers 422', async () => {
    const res = await request(server())
      .put(`/api/v1/workflow/${org.agent.id}`)
      .auth(org.owner.token, { type: 'bearer' })
      .send({ template_context_variables: tooDeep });
    expect(res.status).toBe(422);
  });

  it('as a webhook node’s payload_template answers 422', async () => {
    const definition = sampleDefinition();
    const res = await request(server())
      .put(`/api/v1/workflow/${org.agent.id}`)
      .auth(org.owner.token, { type: 'bearer' })
      .send({
        workflow_definition: {
          ...definition,
          nodes: [
            ...definition.nodes,
            {
              id: 'hook',
              type: 'webhook',
              position: { x: 0, y: 0 },
              data: { name: 'Hook', endpoint_url: 'https://example.com/hook', payload_template: tooDeep },
            },
          ],
        },
      });
    expect(res.status).toBe(422);
  });

  it('within the limit is accepted', async () => {
    const res = await request(server())
      .put(`/api/v1/workflow/${org.agent.id}`)
      .auth(org.owner.token, { type: 'bearer' })
      .send({ template_context_variables: nested(JSON_LIMITS.depth) });
    expect(res.status).toBe(200);
  });
});
