import request from 'supertest';
import { Run } from '../../entities';
import { textChatWorkflowId } from '../../workflows/text-chat/definitions';
import { AgentIdAttribute } from '../../workflows/search-attributes';
import { createApiKey, signUp, type SignedUp } from '../helpers/accounts';
import { createAgent, insertRun, sampleDefinition, type CreatedAgent } from '../helpers/agents';
import { buildTestApp } from '../helpers/app';
import { callWorker } from '../helpers/call-worker';
import { useTestServices } from '../helpers/services';
import { uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();

let taskQueue: string;
let owner: SignedUp;
let apiKey: string;
let agent: CreatedAgent;

/** A fresh API process over the same database and Temporal: the API keeps nothing between requests. */
const api = () =>
  buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: taskQueue, SECRETS_KEY: TEST_SECRETS_KEY, PRICE_PER_1K_TOKENS_USD: '0.002' },
  ).app.callback();

beforeAll(async () => {
  taskQueue = uniqueTaskQueue('text-chat');
  owner = await signUp(api());
  apiKey = (await createApiKey(api(), owner.token)).api_key;
  agent = await createAgent(api(), owner.token, sampleDefinition(), 'Chat agent');
});

const worker = (identity = 'e2e-text-chat') =>
  callWorker(services, {
    taskQueue,
    baseUrl: 'http://127.0.0.1:9',
    identity,
    prices: { perMinuteUsd: 0.06, per1kTokensUsd: 0.002 },
  });

const sessions = () => `/api/v1/workflow/${agent.id}/text-chat/sessions`;
const start = (body: object = { initial_context: { first_name: 'Ada' } }) =>
  request(api()).post(sessions()).set('X-API-Key', apiKey).send(body);
const send = (runId: number, body: object) =>
  request(api()).post(`${sessions()}/${runId}/messages`).set('X-API-Key', apiKey).send(body);
const rewind = (runId: number, body: object) =>
  request(api()).post(`${sessions()}/${runId}/rewind`).set('X-API-Key', apiKey).send(body);
const end = (runId: number, body?: object) => {
  const req = request(api()).post(`${sessions()}/${runId}/end`).set('X-API-Key', apiKey);
  return body ? req.send(body) : req;
};
const get = (runId: number) => request(api()).get(`${sessions()}/${runId}`).set('X-API-Key', apiKey);
const runRow = (id: number) => services.db.dataSource.getRepository(Run).findOneByOrFail({ id });
const texts = (transcript: { role: string; text: string }[]) => transcript.map((line) => `${line.role}: ${line.text}`);

describe('a text chat session through the API, Temporal and a worker', () => {
  let runId: number;

  it("opens with the agent's first words, answers each message and ends at the end node", async () => {
    const w = await worker();
    await w.runUntil(async () => {
      const opened = await start({ name: 'Ada tries it', initial_context: { first_name: 'Ada' } });
      expect(opened.status).toBe(201);
      runId = opened.body.run_id as number;
      expect(opened.body).toMatchObject({
        name: 'Ada tries it',
        status: 'open',
        revision: 0,
        turns: 0,
        reply: 'Hello Ada, this is a reminder call.',
      });

      const first = await send(runId, { text: 'Yes, that is me.', expected_revision: 0 });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ status: 'open', revision: 1, turns: 1, reply: 'Confirm.' });

      const last = await send(runId, { text: 'Confirmed, thank you.', expected_revision: 1 });
      expect(last.status).toBe(200);
      expect(last.body).toMatchObject({
        status: 'ended',
        revision: 2,
        ended_by: 'end_node',
        disposition: 'completed',
        reply: 'Say goodbye.',
      });
      expect(texts(last.body.transcript)).toEqual([
        'assistant: Hello Ada, this is a reminder call.',
        'user: Yes, that is me.',
        'assistant: Confirm.',
        'user: Confirmed, thank you.',
        'assistant: Say goodbye.',
      ]);
    });

    const run = await runRow(runId);
    expect(run).toMatchObject({
      provider: 'text_chat',
      name: 'Ada tries it',
      isCompleted: true,
      state: 'completed',
      disposition: 'completed',
      callDurationSeconds: 0,
      temporalWorkflowId: textChatWorkflowId(runId),
    });
    expect(run.gatheredContext).toMatchObject({ call_status: 'completed', mapped_call_disposition: 'completed' });
    expect(run.logs).toMatchObject({ ended_by: 'end_node', node_path: ['start', 'talk', 'end'] });
    expect(run.platformTokenUsage).toBeGreaterThan(0);
    expect(run.chargeUsd).toBeGreaterThan(0);
    expect(run.usageInfo).toMatchObject({ llm: { model: 'offline' } });
    const description = await services.temporal.client.workflow.getHandle(textChatWorkflowId(runId)).describe();
    expect(description.typedSearchAttributes.get(AgentIdAttribute)).toBe(agent.id);
  });

  it('shows the ended session, and lists it in the runs and the usage report', async () => {
    const session = await get(runId);
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ run_id: runId, status: 'ended', revision: 2, disposition: 'completed' });

    const runs = await request(api()).get(`/api/v1/workflow/${agent.id}/runs`).set('X-API-Key', apiKey);
    expect(runs.status).toBe(200);
    expect(runs.body.runs).toEqual(expect.arrayContaining([expect.objectContaining({ id: runId, mode: 'text_chat' })]));
    const usage = await request(api()).get('/api/v1/organizations/usage/runs').set('X-API-Key', apiKey);
    expect(usage.status).toBe(200);
    expect((usage.body.runs as { id: number }[]).map((run) => run.id)).toContain(runId);
  });

  it('refuses a stale revision with 409 and changes nothing; an ended session takes no message', async () => {
    const w = await worker();
    await w.runUntil(async () => {
      const opened = await start();
      const id = opened.body.run_id as number;
      expect((await send(id, { text: 'Yes.', expected_revision: 0 })).status).toBe(200);
      const stale = await send(id, { text: 'Yes again.', expected_revision: 0 });
      expect(stale.status).toBe(409);
      expect(stale.body).toEqual({ detail: 'The session is at revision 1, not 0' });
      const session = await get(id);
      expect(session.body).toMatchObject({ status: 'open', revision: 1, turns: 1 });
      expect(texts(session.body.transcript)).toEqual([
        'assistant: Hello Ada, this is a reminder call.',
        'user: Yes.',
        'assistant: Confirm.',
      ]);
      const ended = await end(id, { expected_revision: 1 });
      expect(ended.status).toBe(200);
      expect(ended.body).toMatchObject({ status: 'ended', ended_by: 'callee_hangup', disposition: 'user_hangup' });
      expect((await send(id, { text: 'Hello?' })).status).toBe(409);
      expect((await end(id)).status).toBe(409);
    });
  });

  it('rewinds to an earlier turn and continues from there', async () => {
    const w = await worker();
    await w.runUntil(async () => {
      const id = (await start()).body.run_id as number;
      expect((await send(id, { text: 'Yes.' })).body).toMatchObject({ revision: 1, turns: 1 });
      const tooFar = await rewind(id, { to_turn: 1 });
      expect(tooFar.status).toBe(422);
      expect(tooFar.body).toEqual({ detail: 'to_turn must be an earlier turn, from 0 to 0' });
      expect((await rewind(id, { to_turn: 0, expected_revision: 0 })).status).toBe(409);

      const back = await rewind(id, { to_turn: 0, expected_revision: 1 });
      expect(back.status).toBe(200);
      expect(back.body).toMatchObject({ status: 'open', revision: 2, turns: 0, reply: '' });
      expect(texts(back.body.transcript)).toEqual(['assistant: Hello Ada, this is a reminder call.']);

      const again = await send(id, { text: 'Who is this?', expected_revision: 2 });
      expect(again.body).toMatchObject({ revision: 3, turns: 1, reply: 'Confirm.' });
      expect(texts(again.body.transcript)).toEqual([
        'assistant: Hello Ada, this is a reminder call.',
        'user: Who is this?',
        'assistant: Confirm.',
      ]);
      const done = await send(id, { text: 'Confirmed.' });
      expect(done.body).toMatchObject({ status: 'ended', ended_by: 'end_node' });
      expect((await runRow(id)).logs).toMatchObject({ node_path: ['start', 'talk', 'end'] });
    });
  });

  it('loses nothing when the worker and the API stop between two messages', async () => {
    let id = 0;
    const first = await worker('text-chat-worker-a');
    await first.runUntil(async () => {
      id = (await start()).body.run_id as number;
      expect((await send(id, { text: 'Yes.', expected_revision: 0 })).body).toMatchObject({ reply: 'Confirm.' });
    });
    // The first worker is shut down; another, which never saw the session, takes the next message.
    const second = await worker('text-chat-worker-b');
    await second.runUntil(async () => {
      const next = await send(id, { text: 'Confirmed.', expected_revision: 1 });
      expect(next.status).toBe(200);
      expect(next.body).toMatchObject({ status: 'ended', revision: 2, ended_by: 'end_node', reply: 'Say goodbye.' });
      expect(texts(next.body.transcript)).toEqual([
        'assistant: Hello Ada, this is a reminder call.',
        'user: Yes.',
        'assistant: Confirm.',
        'user: Confirmed.',
        'assistant: Say goodbye.',
      ]);
    });
  });

  it('answers 404 for an agent or a run that is not there, and for a call run', async () => {
    expect(
      (await request(api()).post('/api/v1/workflow/999999/text-chat/sessions').set('X-API-Key', apiKey).send({}))
        .status,
    ).toBe(404);
    expect((await get(999_999)).status).toBe(404);
    expect((await send(999_999, { text: 'Hi' })).status).toBe(404);
    const call = await insertRun(services.db.dataSource, {
      organizationId: owner.user.organization_id,
      workflowId: agent.id,
      definitionId: agent.current_definition_id,
      isCompleted: false,
    });
    expect((await get(call)).status).toBe(404);
    expect((await end(call)).status).toBe(404);
  });

  it('takes a read key for reading only, and a calls key for talking', async () => {
    const keyOf = async (scope: string) => {
      const res = await request(api())
        .post('/api/v1/user/api-keys')
        .auth(owner.token, { type: 'bearer' })
        .send({ name: `text chat ${scope}`, scope });
      expect(res.status).toBe(201);
      return res.body.api_key as string;
    };
    const read = await keyOf('read');
    expect((await request(api()).get(`${sessions()}/${runId}`).set('X-API-Key', read)).status).toBe(200);
    const refused = await request(api()).post(`${sessions()}/${runId}/end`).set('X-API-Key', read);
    expect(refused.status).toBe(403);
    const calls = await keyOf('calls');
    // Past the scope check: the session has ended.
    expect((await request(api()).post(`${sessions()}/${runId}/end`).set('X-API-Key', calls)).status).toBe(409);
  });

  it('validates messages', async () => {
    const blank = await send(runId, { text: '   ' });
    expect(blank.status).toBe(422);
    expect(blank.body.detail[0]).toMatchObject({ loc: ['body', 'text'] });
    const negative = await rewind(runId, { to_turn: -1 });
    expect(negative.status).toBe(422);
  });
});
