import type { TestWorkflowEnvironment } from '@temporalio/testing';
import request from 'supertest';
import { AgentVersionCache } from '../../domain/agents/version-cache';
import { sendTextChatMessage, startTextChat, textChatSession } from '../../domain/text-chat/sessions';
import { Run } from '../../entities';
import { textChatWorkflowId, type TextChatView } from '../../workflows/text-chat/definitions';
import type { TestServer } from '../helpers/accounts';
import { signUp, type SignedUp } from '../helpers/accounts';
import { createAgent, sampleDefinition } from '../helpers/agents';
import { callWorker } from '../helpers/call-worker';
import { useTestServices } from '../helpers/services';
import { uniqueTaskQueue } from '../helpers/temporal';
import { createTimeSkippingEnvironment } from '../helpers/time-skipping';

const services = useTestServices();
let env: TestWorkflowEnvironment;
let app: TestServer;
let owner: SignedUp;

beforeAll(async () => {
  env = await createTimeSkippingEnvironment();
  app = services.server();
  owner = await signUp(app);
}, 180_000);
afterAll(async () => {
  await env?.teardown();
});

/** The inactivity timers a session's history started, in seconds. */
async function timerSeconds(runId: number): Promise<number[]> {
  const history = await env.client.workflow.getHandle(textChatWorkflowId(runId)).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const timeout = event.timerStartedEventAttributes?.startToFireTimeout;
    return timeout ? [Number(timeout.seconds ?? 0)] : [];
  });
}

/** A worker on the time-skipping server and the session functions' dependencies on its queue. */
async function sessionWorker() {
  const taskQueue = uniqueTaskQueue('text-chat-idle');
  const worker = await callWorker(services, {
    taskQueue,
    baseUrl: 'http://127.0.0.1:9',
    identity: 'text-chat-idle',
    worker: { connection: env.nativeConnection },
  });
  const deps = {
    dataSource: services.db.dataSource,
    temporal: env.client,
    taskQueue,
    versions: new AgentVersionCache(services.db.dataSource),
  };
  return { worker, deps };
}

describe('the inactivity timeout of a text chat session', () => {
  it.each([
    ['the default 1,800 s', {}, 1800],
    ["the agent's text_chat_inactivity_timeout_seconds", { text_chat_inactivity_timeout_seconds: 120 }, 120],
  ])('ends a quiet session after %s, as user_idle, and concludes its run', async (_, configurations, seconds) => {
    const agent = await createAgent(app, owner.token, sampleDefinition(), `Idle agent ${seconds}`);
    if (Object.keys(configurations).length > 0) {
      const res = await request(app)
        .put(`/api/v1/workflow/${agent.id}`)
        .auth(owner.token, { type: 'bearer' })
        .send({ workflow_configurations: configurations });
      expect(res.status).toBe(200);
    }
    const { worker, deps } = await sessionWorker();
    await worker.runUntil(async () => {
      const opened = await startTextChat(deps, {
        organizationId: owner.user.organization_id,
        agentId: agent.id,
        initialContext: { first_name: 'Ada' },
      });
      expect(opened).toMatchObject({ status: 'open', revision: 0 });
      // Waiting on the result lets the test server skip to the timer.
      const ended: TextChatView = await env.client.workflow.getHandle(textChatWorkflowId(opened.runId)).result();
      expect(ended).toMatchObject({
        status: 'ended',
        endedBy: 'user_idle',
        disposition: 'user_idle_max_duration_exceeded',
      });
      expect(await timerSeconds(opened.runId)).toEqual([seconds]);
      const run = await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: opened.runId });
      expect(run).toMatchObject({ isCompleted: true, disposition: 'user_idle_max_duration_exceeded' });
      expect(run.logs).toMatchObject({ ended_by: 'user_idle' });
      const session = await textChatSession(deps, {
        organizationId: owner.user.organization_id,
        agentId: agent.id,
        runId: opened.runId,
      });
      expect(session).toMatchObject({ status: 'ended', endedBy: 'user_idle', revision: 1 });
    });
  });

  it('starts the wait again with every message', async () => {
    const agent = await createAgent(app, owner.token, sampleDefinition(), 'Chatty agent');
    const { worker, deps } = await sessionWorker();
    await worker.runUntil(async () => {
      const ref = { organizationId: owner.user.organization_id, agentId: agent.id };
      const opened = await startTextChat(deps, { ...ref, initialContext: { first_name: 'Ada' } });
      await env.sleep('25 minutes');
      const answered = await sendTextChatMessage(deps, { ...ref, runId: opened.runId }, { text: 'Yes.' });
      expect(answered).toMatchObject({ status: 'open', revision: 1 });
      const ended: TextChatView = await env.client.workflow.getHandle(textChatWorkflowId(opened.runId)).result();
      expect(ended).toMatchObject({ endedBy: 'user_idle', turns: 1 });
      // The first wait was cut short by the message; the second, from the agent's answer, ran its full length.
      expect(await timerSeconds(opened.runId)).toEqual([1800, 1800]);
    });
  });
});
