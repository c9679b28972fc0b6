import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from '@temporalio/worker';
import request from 'supertest';
import { createActivities } from '../../activities';
import { converse } from '../../agent-runtime';
import { Run } from '../../entities';
import { Secrets } from '../../telephony/secrets';
import { analysisWorkflowId, callWorkflowId } from '../../workflows/definitions';
import { createAgent } from '../helpers/agents';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, definitionWithTrigger, triggerPathOf, type CallingOrganization } from '../helpers/calls';
import { FakeLanguageModel } from '../helpers/llm-fake';
import { useTestServices } from '../helpers/services';
import { testDataConverter, testWorkflowBundle, uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));

/** The customer's endpoint: records every body it is sent. */
const bodies: unknown[] = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    bodies.push(JSON.parse(Buffer.concat(chunks).toString() || 'null'));
    res.writeHead(200).end('ok');
  });
});

const llm = new FakeLanguageModel();
let http: Server;
let app: ReturnType<typeof buildTestApp>['app'];
let org: CallingOrganization;
let taskQueue: string;
let baseUrl: string;
/** Tokens are charged at $0.01 per 1k, so the analysis's show in the run's charge. */
const PRICES = { perMinuteUsd: 0, per1kTokensUsd: 0.01 };

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  await llm.start();
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  taskQueue = uniqueTaskQueue('post-call-analysis');
  app = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY },
  ).app;
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  org = await callingOrganization(app.callback(), { ring_seconds: 0, talk_seconds: 2 });
}, 60_000);

/** A worker as workers/main.ts runs it; the conversation runs offline (no LLM_*), so only QA nodes with their own endpoint ask the fake. */
const createWorker = () =>
  Worker.create({
    connection: services.temporal.nativeConnection,
    taskQueue,
    workflowBundle: testWorkflowBundle(),
    dataConverter: testDataConverter,
    activities: createActivities({
      dataSource: services.db.dataSource,
      workerIdentity: 'e2e-post-call-analysis',
      calls: {
        secrets,
        settings: {
          publicBaseUrl: baseUrl,
          pricePerMinuteUsd: PRICES.perMinuteUsd,
          pricePer1kTokensUsd: PRICES.per1kTokensUsd,
        },
        converse,
        temporal: services.temporal.client,
      },
      webhooks: { allowPrivate: true },
    }),
  });

afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await llm.stop();
});

const receiverUrl = () => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const qaNode = (id: string, data: Record<string, unknown> = {}) => ({
  id,
  type: 'qa',
  position: { x: 600, y: 0 },
  data: { name: `QA ${id}`, qa_min_call_duration: 0, ...data },
});

const webhookNode = (template: Record<string, unknown>) => ({
  id: 'hook',
  type: 'webhook',
  position: { x: 400, y: 0 },
  data: { name: 'CRM', endpoint_url: receiverUrl(), payload_template: template },
});

/** Creates an agent with these extra nodes, calls through the API and waits for the call workflow to end. */
async function callWith(nodes: object[]): Promise<Run> {
  const base = definitionWithTrigger();
  const agent = await createAgent(app.callback(), org.owner.token, { ...base, nodes: [...base.nodes, ...nodes] });
  const worker = await createWorker();
  return worker.runUntil(async () => {
    const res = await request(app.callback())
      .post(`/api/v1/public/agent/${triggerPathOf(agent)}`)
      .set('X-API-Key', org.apiKey)
      .send({ phone_number: '+14155550123', initial_context: { first_name: 'Ada' } });
    expect(res.status).toBe(200);
    const runId = res.body.workflow_run_id as number;
    await services.temporal.client.workflow.getHandle(callWorkflowId(runId)).result();
    return services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
  });
}

/** The offline call of the first test, analysed again by the rerun test. */
let offlineRun: Run;

describe('post-call analysis through the real service', () => {
  it('offline: the QA node annotates the run, and the webhook that runs after reads the annotations', async () => {
    bodies.length = 0;
    const run = await callWith([
      qaNode('quality', {
        analysis_fields: [{ name: 'first_name', type: 'string', description: 'Who was called' }],
        success_evaluation: { criteria: 'The reminder was delivered.' },
      }),
      webhookNode({
        run: '{{workflow_run_id}}',
        sentiment: '{{annotations.qa_quality.overall_sentiment}}',
        score: '{{annotations.qa_quality.score}}',
        tags: '{{annotations.tags}}',
        successful: '{{annotations.analysis.fields.call_successful.value}}',
      }),
    ]);
    offlineRun = run;
    const qa = run.annotations.qa_quality as Record<string, unknown>;
    expect(qa).toMatchObject({ model: 'offline', overall_sentiment: expect.any(String), score: expect.any(Number) });
    expect(qa.summary).toContain(`A ${run.callDurationSeconds} s call`);
    expect(run.annotations.tags).toEqual(expect.any(Array));
    expect(run.annotations.analysis).toMatchObject({
      model: 'offline',
      fields: {
        call_summary: { type: 'string', value: qa.summary },
        call_successful: { type: 'boolean' },
        user_sentiment: { type: 'enum', value: qa.overall_sentiment },
        first_name: { type: 'string', value: null },
      },
      success: { rubric: 'pass_fail' },
    });
    expect(run.annotations.analysis_run).toMatchObject({ id: 'call', trigger: 'call', total_tokens: 0 });
    // The webhook went out after the analysis, with its results.
    expect(bodies).toEqual([
      {
        run: run.id,
        sentiment: qa.overall_sentiment,
        score: qa.score,
        tags: run.annotations.tags,
        successful: (run.annotations.analysis as { fields: { call_successful: { value: boolean } } }).fields
          .call_successful.value,
      },
    ]);
  }, 120_000);

  it("with the node's own model (a credential's key): its answer is stored and its tokens charged to the run", async () => {
    llm.reset();
    const credential = await request(app.callback())
      .post('/api/v1/credentials')
      .auth(org.owner.token, { type: 'bearer' })
      .send({ name: 'QA model', credential_type: 'bearer_token', credential_data: { token: 'sk-qa-key' } });
    expect(credential.status).toBe(201);
    llm.answer({
      content: JSON.stringify({
        summary: 'A reminder was delivered to Ada.',
        tags: [{ tag: 'reminder_delivered', reason: 'the agent read it out' }],
        score: 9,
        overall_sentiment: 'positive',
        fields: { call_summary: 'Reminder delivered.', call_successful: true, user_sentiment: 'positive' },
      }),
      usage: [1_200, 300, 1_500],
    });
    const run = await callWith([
      qaNode('model', {
        qa_use_workflow_llm: false,
        qa_endpoint: llm.baseUrl,
        qa_model: 'qa-model',
        qa_credential_uuid: credential.body.uuid as string,
        qa_system_prompt: 'Review this call: {{transcript}} Metrics: {metrics}',
      }),
    ]);
    const [asked] = llm.received;
    expect(asked?.headers.authorization).toBe('Bearer sk-qa-key');
    expect(asked?.body.messages[0]?.content).toMatch(/^Review this call: \[.+\] assistant: /);
    expect(asked?.body.messages[0]?.content).toContain('Metrics: {"call_status":"completed"');
    expect(run.annotations.qa_model).toMatchObject({
      summary: 'A reminder was delivered to Ada.',
      tags: [{ tag: 'reminder_delivered', reason: 'the agent read it out' }],
      score: 9,
      overall_sentiment: 'positive',
      model: 'qa-model',
    });
    expect(run.annotations.tags).toEqual(['reminder_delivered']);
    expect(run.usageInfo.analysis).toEqual({
      models: ['qa-model'],
      prompt_tokens: 1_200,
      completion_tokens: 300,
      total_tokens: 1_500,
    });
    const conversationTokens = (run.usageInfo.llm as { total_tokens: number }).total_tokens;
    expect(run.platformTokenUsage).toBe(conversationTokens + 1_500);
    expect(run.chargeUsd).toBeCloseTo(((conversationTokens + 1_500) / 1000) * PRICES.per1kTokensUsd, 6);
    expect(run.costInfo).toMatchObject({ platform_token_usage: conversationTokens + 1_500 });
  }, 120_000);

  it('a call outside the sample, and a model answer that is not JSON, are recorded as such', async () => {
    llm.reset();
    llm.answer({ content: 'I think the call went fine.', usage: [800, 8, 808] });
    const run = await callWith([
      qaNode('sampled_out', { qa_sample_rate: 0 }),
      qaNode('broken', { qa_use_workflow_llm: false, qa_endpoint: llm.baseUrl, qa_model: 'qa-model' }),
    ]);
    expect(run.annotations.qa_sampled_out).toEqual({ skipped: true, reason: 'not_sampled' });
    expect(run.annotations.qa_broken).toEqual({
      error: "The model's answer is not JSON: I think the call went fine.",
      model: 'qa-model',
    });
    expect(run.annotations.tags).toEqual([]);
    expect(run.annotations).not.toHaveProperty('analysis');
    expect((run.usageInfo.analysis as { total_tokens: number }).total_tokens).toBe(808);
  }, 120_000);

  it('a rerun (202, idempotent per key) replaces the results and keeps the previous ones in the history', async () => {
    const run = offlineRun;
    const rerun = () =>
      request(app.callback())
        .post(`/api/v1/workflow-run/${run.id}/analysis`)
        .set('X-API-Key', org.apiKey)
        .set('Idempotency-Key', 'reanalyse-once');
    const first = await rerun();
    expect(first.status).toBe(202);
    expect(first.body).toEqual({
      run_id: run.id,
      analysis_id: expect.stringMatching(/^key-[0-9a-f]{32}$/),
      status: 'accepted',
    });
    const again = await rerun();
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    const analysisId = first.body.analysis_id as string;
    const worker = await createWorker();
    await worker.runUntil(services.temporal.client.workflow.getHandle(analysisWorkflowId(run.id, analysisId)).result());
    const after = await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: run.id });
    expect(after.annotations.analysis_run).toMatchObject({ id: analysisId, trigger: 'rerun' });
    expect(after.annotations.qa_quality).toMatchObject({ model: 'offline' });
    // The first analysis, whole, in the history; nothing else the run's annotations hold changed.
    expect(after.analysisHistory).toEqual([
      {
        qa_quality: run.annotations.qa_quality,
        tags: run.annotations.tags,
        analysis: run.annotations.analysis,
        analysis_run: run.annotations.analysis_run,
      },
    ]);
    // A repeat of the same rerun (a retried activity) writes nothing more.
    const repeat = await services.temporal.client.workflow.start('analysisWorkflow', {
      workflowId: `${analysisWorkflowId(run.id, analysisId)}-repeat`,
      taskQueue,
      args: [{ runId: run.id, analysisId }],
    });
    const worker2 = await createWorker();
    expect(await worker2.runUntil(repeat.result())).toEqual({ analyzed: false, totalTokens: 0 });
    const unchanged = await services.db.dataSource.getRepository(Run).findOneByOrFail({ id: run.id });
    expect(unchanged.analysisHistory).toHaveLength(1);
  }, 120_000);

  it('a run whose agent has no QA node cannot be analysed again: 409', async () => {
    const run = await callWith([]);
    expect(run.annotations).toEqual({});
    const res = await request(app.callback())
      .post(`/api/v1/workflow-run/${run.id}/analysis`)
      .set('X-API-Key', org.apiKey);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: "The run's agent has no enabled QA node to analyse it with" });
  }, 120_000);
});
