import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createApiKey, signUp } from '../helpers/accounts';
import { createAgent, sampleDefinition, type CreatedAgent } from '../helpers/agents';
import { buildTestApp } from '../helpers/app';
import { callWorker } from '../helpers/call-worker';
import { FakeLanguageModel } from '../helpers/llm-fake';
import { useTestServices } from '../helpers/services';
import { uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { waitFor } from '../helpers/wait-for';

const services = useTestServices();
const llm = new FakeLanguageModel();

let taskQueue: string;
let apiKey: string;
let agent: CreatedAgent;
let server: Server;
let baseUrl: string;

const api = () =>
  buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: taskQueue, SECRETS_KEY: TEST_SECRETS_KEY },
  ).app.callback();

/** The talk node's first sentence is what the offline policy answers a message with. */
const definition = () => {
  const longer = sampleDefinition();
  const talk = longer.nodes.find((node) => node.id === 'talk');
  if (talk) talk.data.prompt = 'Please confirm the visit tomorrow at ten.';
  return longer;
};

beforeAll(async () => {
  taskQueue = uniqueTaskQueue('text-chat-stream');
  await llm.start();
  const owner = await signUp(api());
  apiKey = (await createApiKey(api(), owner.token)).api_key;
  agent = await createAgent(api(), owner.token, definition(), 'Streaming agent');
  // A listening server: the tests read the event stream as it comes, as a browser would.
  const callback = api();
  server = createServer((req, res) => void callback(req, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await llm.stop();
});

beforeEach(() => llm.reset());

const worker = (withModel: boolean) =>
  callWorker(services, {
    taskQueue,
    baseUrl: 'http://127.0.0.1:9',
    identity: 'e2e-text-chat-stream',
    ...(withModel ? { llm: { baseUrl: llm.baseUrl, model: 'fake-model' } } : {}),
  });

const sessions = () => `/api/v1/workflow/${agent.id}/text-chat/sessions`;
const start = () =>
  request(api())
    .post(sessions())
    .set('X-API-Key', apiKey)
    .send({ initial_context: { first_name: 'Ada' } });
const get = (runId: number) => request(api()).get(`${sessions()}/${runId}`).set('X-API-Key', apiKey);

interface ServerSentEvent {
  event: string;
  data: unknown;
}

/** A streamed message: its response, and its events as they arrive (`next` waits for the next one). */
async function streamMessage(runId: number, body: object, signal?: AbortSignal) {
  const response = await fetch(`${baseUrl}${sessions()}/${runId}/messages`, {
    method: 'POST',
    headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  // Opened on the first read: a refusal's JSON body stays readable.
  let reader: ReadableStreamDefaultReader<string> | undefined;
  let buffered = '';
  const next = async (): Promise<ServerSentEvent | null> => {
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const lines = block.split('\n');
        const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
        const data = lines.find((line) => line.startsWith('data: '))?.slice('data: '.length);
        if (event && data) return { event, data: JSON.parse(data) as unknown };
        continue;
      }
      reader ??= response.body?.pipeThrough(new TextDecoderStream()).getReader();
      const chunk = await reader?.read();
      if (!chunk || chunk.done) return null;
      buffered += chunk.value;
    }
  };
  const rest = async (): Promise<ServerSentEvent[]> => {
    const events: ServerSentEvent[] = [];
    for (let event = await next(); event; event = await next()) events.push(event);
    return events;
  };
  return { response, next, rest };
}

const tokenText = (events: ServerSentEvent[]) =>
  events
    .filter((event) => event.event === 'token')
    .map((event) => (event.data as { text: string }).text)
    .join('');

describe('a text chat reply streamed as server-sent events', () => {
  it("relays the language model's tokens as they stream, then the reply and the new revision", async () => {
    const w = await worker(true);
    await w.runUntil(async () => {
      llm.answer({ content: 'Hello Ada, this is a reminder.' });
      const id = (await start()).body.run_id as number;
      let release!: () => void;
      llm.answer({
        content: 'Yes, I can confirm tomorrow at ten.',
        holdAfterFirstChunk: new Promise<void>((resolve) => (release = resolve)),
      });

      const streamed = await streamMessage(id, { text: 'Is it tomorrow?', expected_revision: 0 });
      expect(streamed.response.status).toBe(200);
      expect(streamed.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      // The model has sent one piece and holds the rest: the piece is here before the reply exists.
      expect(await streamed.next()).toEqual({ event: 'token', data: { text: 'Yes, ' } });
      expect(llm.received.at(-1)?.body.stream).toBe(true);
      release();

      const events = await streamed.rest();
      const last = events.at(-1);
      expect(last?.event).toBe('reply');
      expect(last?.data).toMatchObject({
        status: 'open',
        revision: 1,
        turns: 1,
        reply: 'Yes, I can confirm tomorrow at ten.',
      });
      expect(`Yes, ${tokenText(events)}`).toBe('Yes, I can confirm tomorrow at ten.');
      expect(events.filter((event) => !['token', 'reply'].includes(event.event))).toEqual([]);

      const session = (await get(id)).body as { revision: number; transcript: { role: string; text: string }[] };
      expect(session).toMatchObject({ revision: 1 });
      expect(session.transcript.at(-1)).toMatchObject({
        role: 'assistant',
        text: 'Yes, I can confirm tomorrow at ten.',
      });
    });
  });

  it('answers a stale revision 409 as JSON before any event, and changes nothing', async () => {
    const w = await worker(false);
    await w.runUntil(async () => {
      const id = (await start()).body.run_id as number;
      const first = await streamMessage(id, { text: 'Yes.', expected_revision: 0 });
      expect((await first.rest()).at(-1)).toMatchObject({ event: 'reply', data: { revision: 1 } });

      const stale = await streamMessage(id, { text: 'Yes again.', expected_revision: 0 });
      expect(stale.response.status).toBe(409);
      expect(stale.response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await stale.response.json()).toEqual({ detail: 'The session is at revision 1, not 0' });
      expect((await get(id)).body).toMatchObject({ revision: 1, turns: 1 });

      const missing = await streamMessage(999_999, { text: 'Hello?' });
      expect(missing.response.status).toBe(404);
    });
  });

  it("streams the offline policy's reply word by word, and the last words of an ended session", async () => {
    const w = await worker(false);
    await w.runUntil(async () => {
      const id = (await start()).body.run_id as number;
      const events = await (await streamMessage(id, { text: 'Who is this?' })).rest();
      const tokens = events.filter((event) => event.event === 'token').map((event) => event.data);
      expect(tokens).toEqual(
        ['Please ', 'confirm ', 'the ', 'visit ', 'tomorrow ', 'at ', 'ten.'].map((text) => ({ text })),
      );
      expect(events.at(-1)).toMatchObject({
        event: 'reply',
        data: { revision: 1, reply: 'Please confirm the visit tomorrow at ten.' },
      });

      const last = await (await streamMessage(id, { text: 'Confirmed.', expected_revision: 1 })).rest();
      expect(tokenText(last)).toBe('Say goodbye.');
      expect(last.at(-1)).toMatchObject({
        event: 'reply',
        data: { status: 'ended', ended_by: 'end_node', revision: 2, reply: 'Say goodbye.' },
      });
    });
  });

  it('keeps the whole reply for a reader that lost the stream', async () => {
    const w = await worker(true);
    await w.runUntil(async () => {
      llm.answer({ content: 'Hello Ada.' });
      const id = (await start()).body.run_id as number;
      let release!: () => void;
      llm.answer({
        content: 'Your visit is tomorrow at ten.',
        holdAfterFirstChunk: new Promise<void>((resolve) => (release = resolve)),
      });
      const abort = new AbortController();
      const streamed = await streamMessage(id, { text: 'When is it?' }, abort.signal);
      expect(await streamed.next()).toMatchObject({ event: 'token' });
      abort.abort();
      release();

      const session = await waitFor(
        'the reply in the session',
        async () => {
          const body = (await get(id)).body as { revision: number; transcript: { text: string }[] };
          return body.revision === 1 ? body : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(session.transcript.at(-1)).toMatchObject({ text: 'Your visit is tomorrow at ten.' });

      llm.answer({ content: 'See you then.' });
      const next = await request(api())
        .post(`${sessions()}/${id}/messages`)
        .set('X-API-Key', apiKey)
        .send({ text: 'Thanks.', expected_revision: 1 });
      expect(next.status).toBe(200);
      expect(next.body).toMatchObject({ revision: 2, reply: 'See you then.' });
      expect(llm.received.at(-1)?.body.stream).toBeUndefined();
    });
  });
});
