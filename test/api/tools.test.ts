import request from 'supertest';
import { verifyV2 } from '../../domain/webhooks/signature-v2';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { createAgent, sampleDefinition } from '../helpers/agents';
import { useRecordingServer, type SeenRequest } from '../helpers/recording-server';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();

const receiver = useRecordingServer((path, res) => {
  if (path.startsWith('/orders/')) {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ status: 'shipped', eta: 'Tuesday' }));
  } else if (path === '/missing') res.writeHead(404, { 'content-type': 'text/plain' }).end('no such order');
  else if (path === '/huge') res.writeHead(200, { 'content-type': 'application/json' }).end(`"${'x'.repeat(20_000)}"`);
  else if (path === '/text') res.writeHead(200, { 'content-type': 'text/plain' }).end('Open until six.');
  else if (path === '/hang') return;
  else res.writeHead(500).end('boom');
});
const { seen } = receiver;

let app: TestServer;
/** The same service where private addresses are not allowed, as in production. */
let guarded: TestServer;
let owner: SignedUp;
let other: SignedUp;
beforeAll(async () => {
  app = services.server({ SECRETS_KEY: TEST_SECRETS_KEY, ALLOW_PRIVATE_WEBHOOKS: 'true' });
  guarded = services.server({ SECRETS_KEY: TEST_SECRETS_KEY, ALLOW_PRIVATE_WEBHOOKS: 'false' });
  owner = await signUp(app);
  other = await signUp(app);
});

const as = (server: TestServer, method: 'get' | 'post' | 'put' | 'delete', path: string, caller = owner) =>
  request(server)[method](path).auth(caller.token, { type: 'bearer' });

const httpTool = (config: Record<string, unknown> = {}, name = 'Order status') => ({
  name,
  description: 'Looks up an order by its number.',
  definition: {
    type: 'http_api',
    config: {
      method: 'POST',
      url: `${receiver.baseUrl}/orders/{{order_id}}?from={{initial_context.city}}`,
      headers: { 'X-Campaign': '{{initial_context.campaign}}' },
      parameters: [{ name: 'order_id', type: 'string', description: 'The order number' }],
      preset_parameters: [{ name: 'caller', type: 'string', value_template: '{{initial_context.phone_number}}' }],
      body_template: { order: '{{order_id}}', who: '{{caller}}', attempt: '{{initial_context.attempt}}' },
      ...config,
    },
  },
});

const createTool = async (body: object, caller = owner, server = app) => {
  const res = await as(server, 'post', '/api/v1/tools', caller).send(body);
  if (res.status !== 201) throw new Error(`tool creation answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body as { tool_uuid: string; status: string };
};

describe('the tools resource', () => {
  it('creates, lists, replaces, archives and unarchives a tool', async () => {
    const tool = await createTool(httpTool());
    expect(tool).toMatchObject({ category: 'http_api', status: 'active', definition: { schema_version: 1 } });
    const listed = await as(app, 'get', '/api/v1/tools?category=http_api');
    expect((listed.body as { tools: { tool_uuid: string }[] }).tools.map((t) => t.tool_uuid)).toContain(tool.tool_uuid);

    const replaced = await as(app, 'put', `/api/v1/tools/${tool.tool_uuid}`).send(
      httpTool({ timeout_ms: 2000 }, 'Order lookup'),
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ name: 'Order lookup', definition: { config: { timeout_ms: 2000 } } });

    expect((await as(app, 'delete', `/api/v1/tools/${tool.tool_uuid}`)).body.status).toBe('archived');
    expect((await as(app, 'get', '/api/v1/tools?status=active')).body.tools).not.toContainEqual(
      expect.objectContaining({ tool_uuid: tool.tool_uuid }),
    );
    expect((await as(app, 'put', `/api/v1/tools/${tool.tool_uuid}`).send(httpTool())).status).toBe(409);
    expect((await as(app, 'post', `/api/v1/tools/${tool.tool_uuid}/unarchive`)).body.status).toBe('active');
  });

  it('creates end_call and calculator tools with their defaults', async () => {
    const endCall = await createTool({
      name: 'Hang up',
      definition: { type: 'end_call', config: { endCallReason: true } },
    });
    expect(endCall).toMatchObject({
      definition: { type: 'end_call', config: { messageType: 'none', endCallReason: true } },
    });
    const calculator = await createTool({ name: 'Calculator', definition: { type: 'calculator' } });
    expect(calculator).toMatchObject({ category: 'calculator', definition: { config: {} } });
  });

  it('refuses internal addresses at save when private webhooks are not allowed, and hosts with placeholders', async () => {
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/',
      'http://10.0.0.5/',
    ]) {
      const res = await as(guarded, 'post', '/api/v1/tools').send(httpTool({ url }));
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body.detail)).toMatch(/private or reserved/);
    }
    const templatedHost = await as(app, 'post', '/api/v1/tools').send(httpTool({ url: 'http://{{host}}/x' }));
    expect(templatedHost.status).toBe(422);
    const notHttp = await as(app, 'post', '/api/v1/tools').send(httpTool({ url: 'file:///etc/passwd' }));
    expect(notHttp.status).toBe(422);
  });

  it("keeps tenants apart: another organization's tool is 404 and its credential cannot be named", async () => {
    const tool = await createTool(httpTool());
    expect((await as(app, 'get', `/api/v1/tools/${tool.tool_uuid}`, other)).status).toBe(404);
    expect((await as(app, 'post', `/api/v1/tools/${tool.tool_uuid}/test`, other).send({})).status).toBe(404);
    const credential = await as(app, 'post', '/api/v1/credentials', other).send({
      name: 'theirs',
      credential_type: 'bearer_token',
      credential_data: { token: 'tok_theirs_0123456789' },
    });
    expect(credential.status).toBe(201);
    const res = await as(app, 'post', '/api/v1/tools').send(httpTool({ credential_uuid: credential.body.uuid }));
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'definition', 'config', 'credential_uuid']);
  });
});

describe('agents that name tools', () => {
  const withTools = (uuids: string[], edgeLabel = 'Continue') => {
    const definition = sampleDefinition();
    definition.nodes[0] = {
      ...definition.nodes[0]!,
      data: { ...definition.nodes[0]!.data, tool_uuids: uuids } as never,
    };
    definition.edges[0] = { ...definition.edges[0]!, data: { ...definition.edges[0]!.data, label: edgeLabel } };
    return definition;
  };
  const save = (definition: object, caller = owner) =>
    as(app, 'post', '/api/v1/workflow/create/definition', caller).send({
      name: 'With tools',
      workflow_definition: definition,
    });

  it('saves an agent whose nodes name active tools of the organization', async () => {
    const tool = await createTool(httpTool());
    const agent = await createAgent(app, owner.token, withTools([tool.tool_uuid]));
    expect(agent.workflow_definition.nodes[0]?.data.tool_uuids).toEqual([tool.tool_uuid]);
  });

  it("refuses a missing, archived or another organization's tool, and a function name an edge has, at the node", async () => {
    const archived = await createTool(httpTool());
    await as(app, 'delete', `/api/v1/tools/${archived.tool_uuid}`);
    const theirs = await createTool(httpTool(), other);
    const clash = await createTool(httpTool({}, 'Continue'));
    for (const [definition, message] of [
      [withTools(['7d1c9b2e-0000-4000-8000-000000000000']), /not found/],
      [withTools([archived.tool_uuid]), /archived/],
      [withTools([theirs.tool_uuid]), /not found/],
      [withTools([clash.tool_uuid]), /function name continue/],
    ] as const) {
      const res = await save(definition);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'workflow_definition', 'nodes', 0, 'data', 'tool_uuids', 0]);
      expect(res.body.detail[0].msg).toMatch(message);
    }
  });
});

describe('testing an HTTP tool', () => {
  const test = (uuid: string, body: object, server = app) =>
    as(server, 'post', `/api/v1/tools/${uuid}/test`).send(body);
  const context = { phone_number: '+14155550123', city: 'San José', campaign: 'spring', attempt: 2 };

  it('sends the templated request with presets, the credential, an idempotency key and a v2 signature', async () => {
    const credential = await as(app, 'post', '/api/v1/credentials').send({
      name: 'shop',
      credential_type: 'bearer_token',
      credential_data: { token: 'tok_shop_0123456789abcd' },
    });
    const secret = (await as(app, 'post', '/api/v1/organizations/webhook-signing-secret/rotate').send({})).body
      .secret as string;
    const tool = await createTool(httpTool({ credential_uuid: credential.body.uuid }));
    seen.length = 0;
    const res = await test(tool.tool_uuid, { arguments: { order_id: 'A 10/42' }, initial_context: context });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ ok: true, status_code: 200, data: { status: 'shipped', eta: 'Tuesday' } });
    const [delivery] = seen;
    expect(delivery?.url).toBe(`${receiver.baseUrl}/orders/A%2010%2F42?from=San%20Jos%C3%A9`);
    expect(JSON.parse(delivery?.body ?? '')).toEqual({ order: 'A 10/42', who: '+14155550123', attempt: 2 });
    expect(delivery?.headers['x-campaign']).toBe('spring');
    expect(delivery?.headers.authorization).toBe('Bearer tok_shop_0123456789abcd');
    expect(delivery?.headers['idempotency-key']).toMatch(/^test-/);
    expect(delivery?.headers['webhook-id']).toBe(delivery?.headers['idempotency-key']);
    expect(verifyV2(Buffer.from(secret, 'utf8'), delivery as SeenRequest)).toBe(true);
    // Shown to the person testing with the credential masked.
    expect(res.body.request.headers.Authorization).toMatch(/^\*+abcd$/);
    expect(JSON.stringify(res.body)).not.toContain('tok_shop_0123456789abcd');
  });

  it('tells the model plainly when it did not work: 404, 500, text, a huge answer, a timeout, a missing argument', async () => {
    const at = async (path: string, config: Record<string, unknown> = {}, args: object = { order_id: '1' }) => {
      const tool = await createTool(httpTool({ url: `${receiver.baseUrl}${path}`, method: 'GET', ...config }));
      const res = await test(tool.tool_uuid, { arguments: args, initial_context: context });
      return (res.body as { result: Record<string, unknown> }).result;
    };
    expect(await at('/missing')).toEqual({
      ok: false,
      status_code: 404,
      data: 'no such order',
      error: 'the server answered 404',
    });
    expect(await at('/broken')).toEqual({
      ok: false,
      status_code: 500,
      data: 'boom',
      error: 'the server answered 500',
    });
    expect(await at('/text')).toEqual({ ok: true, status_code: 200, data: 'Open until six.' });
    const huge = await at('/huge');
    expect(huge).toMatchObject({ ok: true, truncated: true });
    expect(String(huge.data)).toMatch(/answer cut at 8000 characters/);
    expect(await at('/hang', { timeout_ms: 300 })).toMatchObject({ ok: false, error: expect.stringMatching(/300 ms/) });
    expect(await at('/orders/x', {}, {})).toEqual({ ok: false, error: 'the argument order_id is required' });
  });

  it('refuses internal addresses at call time where private webhooks are not allowed', async () => {
    const tool = await createTool(httpTool({ url: `${receiver.baseUrl}/orders/{{order_id}}`, method: 'GET' }));
    seen.length = 0;
    const res = await test(tool.tool_uuid, { arguments: { order_id: '1' }, initial_context: context }, guarded);
    expect(res.body.result).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^refused: .*private or reserved/),
    });
    expect(seen).toHaveLength(0);
  });
});
