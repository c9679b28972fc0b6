import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { signUp } from '../helpers/accounts';
import { sampleDefinition } from '../helpers/agents';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string };
}

/** A local OpenAI-compatible server that answers each chat completion with the next scripted content. */
let llm: Server;
let baseUrl: string;
let script: string[] = [];
let received: ChatRequest[] = [];

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

beforeAll(async () => {
  llm = createServer((req, res) => {
    void readBody(req).then((text) => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      received.push(JSON.parse(text) as ChatRequest);
      const content = script.shift();
      if (content === undefined) {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"script exhausted"}}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-test',
          object: 'chat.completion',
          created: 0,
          model: 'test-model',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  llm.listen(0, '127.0.0.1');
  await once(llm, 'listening');
  baseUrl = `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  llm.close();
  await once(llm, 'close');
});

beforeEach(() => {
  script = [];
  received = [];
});

const valid = JSON.stringify({ name: 'Dental reminders', workflow_definition: sampleDefinition() });
const invalid = JSON.stringify({ name: 'Broken', workflow_definition: { nodes: [], edges: [] } });

async function createFromTemplate() {
  const app = services.server({ LLM_BASE_URL: baseUrl, LLM_MODEL: 'test-model' });
  const { token } = await signUp(app);
  return request(app).post('/api/v1/workflow/create/template').auth(token, { type: 'bearer' }).send({
    use_case: 'Dental reminders',
    activity_description: 'Remind patients of appointments',
    call_type: 'outbound',
  });
}

describe('POST /api/v1/workflow/create/template with a language model', () => {
  it('creates the agent the model drafts, asking for JSON that matches the schema', async () => {
    script = [valid];
    const res = await createFromTemplate();
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Dental reminders', version_number: 1 });
    expect(res.body.workflow_definition.nodes).toHaveLength(3);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ model: 'test-model', response_format: { type: 'json_schema' } });
    expect(received[0]?.messages[1]?.content).toContain('Remind patients of appointments');
  });

  it('sends an invalid draft back once with its problems, and uses the repaired one', async () => {
    script = [invalid, valid];
    const res = await createFromTemplate();
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Dental reminders');
    expect(received).toHaveLength(2);
    const repair = received[1]?.messages ?? [];
    expect(repair.at(-2)).toEqual({ role: 'assistant', content: invalid });
    expect(repair.at(-1)?.content).toContain('workflow_definition.nodes');
  });

  it('answers 502 when the draft is invalid twice, and creates nothing', async () => {
    script = ['not json at all', invalid];
    const countAgents = async () =>
      (await services.db.dataSource.query<{ n: number }[]>('SELECT count(*)::int AS n FROM agents'))[0]?.n;
    const before = await countAgents();
    const res = await createFromTemplate();
    expect(res.status).toBe(502);
    expect(res.body).toEqual({
      detail: expect.stringMatching(/^The language model returned an invalid agent twice: workflow_definition\.nodes/),
    });
    expect(await countAgents()).toBe(before);
  });

  it('answers 502 when the model cannot be reached', async () => {
    const app = services.server({ LLM_BASE_URL: 'http://127.0.0.1:1/v1' });
    const { token } = await signUp(app);
    const res = await request(app)
      .post('/api/v1/workflow/create/template')
      .auth(token, { type: 'bearer' })
      .send({ use_case: 'x', activity_description: 'y' });
    expect(res.status).toBe(502);
    expect(res.body.detail).toMatch(/^Language model request failed: /);
  });
});
