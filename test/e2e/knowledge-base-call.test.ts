import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createRetriever } from '../../domain/knowledge-base/retrieval-tool';
import { Run } from '../../entities';
import { callWorkflowId } from '../../workflows/definitions';
import { createAgent } from '../helpers/agents';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { callWorker } from '../helpers/call-worker';
import { documentSettled, makePdf, uploadDocument } from '../helpers/documents';
import { HANDBOOK_PDF } from '../helpers/knowledge-base-corpus';
import { knowledgeBaseSearchDeps } from '../helpers/knowledge-base-worker';
import { useTestServices } from '../helpers/services';
import { uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
jest.setTimeout(180_000);

const QUESTION = 'How long does a refund take?';
const ANSWER = 'Refunds are issued within 14 days of the returned bicycle reaching our warehouse.';

interface ChatMessage {
  role: string;
  content: string | null;
}
interface ChatRequest {
  messages: ChatMessage[];
  tools?: { function: { name: string } }[];
}

/**
 * A local OpenAI-compatible model playing a helpful agent: it greets, looks a caller's question up
 * with `retrieve_from_knowledge_base`, speaks the first sentence of the best passage, and takes the
 * `done` edge once the caller has no more questions.
 */
let llm: Server;
let llmUrl: string;
const llmRequests: ChatRequest[] = [];

function reply(body: ChatRequest): Record<string, unknown> {
  const last = body.messages.at(-1);
  const offered = new Set((body.tools ?? []).map((tool) => tool.function.name));
  const call = (name: string, args: Record<string, unknown>) => ({
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: `call_${llmRequests.length}`, type: 'function', function: { name, arguments: JSON.stringify(args) } },
    ],
  });
  if (last?.role === 'tool') {
    const result = JSON.parse(last.content ?? '{}') as { data?: { results?: { text: string }[] } };
    const passage = result.data?.results?.[0]?.text;
    const sentence = passage?.match(/[^.!?\n]+[.!?]/g)?.find((each) => /refund/i.test(each));
    return { role: 'assistant', content: sentence?.trim() ?? 'I could not find that.' };
  }
  if (last?.role === 'user' && last.content?.includes('?') && offered.has('retrieve_from_knowledge_base')) {
    return call('retrieve_from_knowledge_base', { query: last.content.replace(/^.*?\.\s*/, '') });
  }
  if (last?.role === 'user' && offered.has('done')) return call('done', {});
  return { role: 'assistant', content: body.messages.length > 1 ? 'Goodbye.' : 'Welcome to Harbor Bikes.' };
}

type App = ReturnType<typeof buildTestApp>['app'];

/** An app that starts calls on `taskQueue`, where a worker of the file's own settings serves them. */
interface Lane {
  app: App;
  taskQueue: string;
}

let http: Server;
let baseUrl: string;
let app: App;
/** The offline case's calls: their own task queue, so they run beside the model's on another worker. */
let offline: Lane;
let org: CallingOrganization;
let documentUuid: string;
const taskQueue = uniqueTaskQueue('knowledge-base-call');

const laneApp = (queue: string): App =>
  buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: queue, PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY },
  ).app;

beforeAll(async () => {
  llm = createServer((req: IncomingMessage, res) => {
    void (async () => {
      const parts: Buffer[] = [];
      for await (const part of req) parts.push(part as Buffer);
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as ChatRequest;
      llmRequests.push(body);
      const message = reply(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: 'chatcmpl-test',
          object: 'chat.completion',
          created: 0,
          model: 'test-model',
          choices: [{ index: 0, message, finish_reason: 'tool_calls' in message ? 'tool_calls' : 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    })();
  });
  llm.listen(0, '127.0.0.1');
  await once(llm, 'listening');
  llmUrl = `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`;

  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  app = laneApp(taskQueue);
  const offlineQueue = uniqueTaskQueue('knowledge-base-call-offline');
  offline = { app: laneApp(offlineQueue), taskQueue: offlineQueue };
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  // On the simulated clock both agents have given the answer 11 s into the call (the offline one
  // speaks its whole prompt first); the callee stays a little longer.
  org = await callingOrganization(handle, { ring_seconds: 0, talk_seconds: 15 });

  // The handbook both calls retrieve from, ingested by a worker of the file's queue.
  const worker = await callWorker(services, { taskQueue, baseUrl, identity: 'knowledge-base-ingest' });
  await worker.runUntil(async () => {
    const res = await uploadDocument(app.callback(), org.owner.token, await makePdf(HANDBOOK_PDF), 'handbook.pdf');
    expect(res.status).toBe(201);
    documentUuid = res.body.document_uuid as string;
    expect((await documentSettled(app.callback(), org.owner.token, documentUuid)).status).toBe('completed');
  });
});

afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
  llm.close();
});

/** start (answers from the handbook) → end. */
const answeringAgent = (documents: string[]) => ({
  nodes: [
    {
      id: 'start',
      type: 'startCall',
      position: { x: 0, y: 0 },
      data: {
        name: 'Answer',
        prompt: "Welcome to Harbor Bikes. Answer the caller's questions from the handbook.",
        document_uuids: documents,
      },
    },
    { id: 'end', type: 'endCall', position: { x: 0, y: 100 }, data: { name: 'End', prompt: 'Goodbye.' } },
  ],
  edges: [{ id: 'e1', source: 'start', target: 'end', data: { label: 'Done', condition: 'No more questions' } }],
});

/** Places a call to the agent through `lane`'s app and waits for it, with a worker on the lane's queue. */
async function callAndWait(
  lane: Lane,
  workflowUuid: string,
  llmSettings?: { baseUrl: string; apiKey: string; model: string },
) {
  const worker = await callWorker(services, {
    taskQueue: lane.taskQueue,
    baseUrl,
    identity: 'knowledge-base-call',
    ...(llmSettings ? { llm: llmSettings } : {}),
  });
  return worker.runUntil(async () => {
    const res = await request(lane.app.callback())
      .post(`/api/v1/public/agent/workflow/${workflowUuid}`)
      .set('X-API-Key', org.apiKey)
      .send({ phone_number: '+14155550123', initial_context: { first_name: 'Ada', question: QUESTION } });
    expect(res.status).toBe(200);
    const runId = res.body.workflow_run_id as number;
    await services.temporal.client.workflow.getHandle(callWorkflowId(runId)).result();
    return services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
  });
}

interface LoggedCall {
  tool_uuid: string;
  function: string;
  arguments: Record<string, unknown>;
  status: string;
  result_excerpt: string;
}

// The two calls last their 15 s side by side, each on its own queue and worker; the last case
// deletes the handbook once both are done.
describe('an agent answering from its knowledge base', () => {
  it.concurrent('retrieves with the language model and speaks the answer; the retrieval is in the run', async () => {
    const agent = await createAgent(app.callback(), org.owner.token, answeringAgent([documentUuid]), 'Help desk');
    const model = { baseUrl: llmUrl, apiKey: 'test-key', model: 'test-model' };
    const run = await callAndWait({ app, taskQueue }, agent.workflow_uuid, model);
    const transcript = run.logs.transcript as { role: string; text: string }[];
    expect(transcript.map((line) => line.text)).toEqual(
      expect.arrayContaining([`Hi, this is Ada. ${QUESTION}`, ANSWER]),
    );
    const toolCalls = run.logs.tool_calls as LoggedCall[];
    expect(toolCalls).toEqual([
      expect.objectContaining({
        tool_uuid: 'knowledge_base',
        function: 'retrieve_from_knowledge_base',
        arguments: { query: QUESTION },
        status: 'ok',
        result_excerpt: expect.stringContaining('handbook.pdf'),
      }),
    ]);
    const offeredTools = llmRequests.flatMap((body) => (body.tools ?? []).map((tool) => tool.function.name));
    expect(offeredTools).toContain('retrieve_from_knowledge_base');
  });

  it.concurrent('answers from the retrieved text with no language model (offline policy)', async () => {
    const agent = await createAgent(app.callback(), org.owner.token, answeringAgent([documentUuid]), 'Offline desk');
    const run = await callAndWait(offline, agent.workflow_uuid);
    // What was said, without the tool calls the transcript also holds where they happened.
    const transcript = (run.logs.transcript as { role: string; text: string }[])
      .filter((line) => line.role !== 'tool')
      .map((line) => line.text);
    const asked = transcript.indexOf(`Hi, this is Ada. ${QUESTION}`);
    expect(asked).toBeGreaterThanOrEqual(0);
    expect(transcript[asked + 1]).toBe(ANSWER);
    expect((run.logs.tool_calls as LoggedCall[])[0]).toMatchObject({
      function: 'retrieve_from_knowledge_base',
      status: 'ok',
    });
  });

  it("never retrieves another organization's documents, nor deleted ones", async () => {
    const other = await callingOrganization(app.callback());
    const foreign = await createRetriever(knowledgeBaseSearchDeps(services), other.owner.user.organization_id)(
      [documentUuid],
      QUESTION,
    );
    expect(foreign).toEqual({ ok: true, data: { results: [] } });
    const own = createRetriever(knowledgeBaseSearchDeps(services), org.owner.user.organization_id);
    const found = await own([documentUuid], QUESTION);
    expect(JSON.stringify(found)).toContain('Refunds are issued');
    const deleted = await request(app.callback())
      .delete(`/api/v1/knowledge-base/documents/${documentUuid}`)
      .auth(org.owner.token, { type: 'bearer' });
    expect(deleted.status).toBe(200);
    expect(await own([documentUuid], QUESTION)).toEqual({ ok: true, data: { results: [] } });
  });
});
