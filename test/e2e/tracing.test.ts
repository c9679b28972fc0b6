import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Client } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { bundleWorkflowCode } from '@temporalio/worker';
import request from 'supertest';
import { createApp } from '../../api/app';
import { createMetrics } from '../../api/metrics';
import { parseConfig } from '../../platform/config';
import { createLogger } from '../../platform/logger';
import { FAILURE_CONVERTER_PATH } from '../../platform/payload-codec';
import { startTracing, type Tracing } from '../../platform/tracing/tracing';
import { WORKFLOW_TRACING_MODULE, workerTracing } from '../../platform/tracing/worker-tracing';
import { callWorkflowId } from '../../workflows/definitions';
import { TEST_SESSION_SECRET } from '../helpers/app';
import { callingOrganization } from '../helpers/calls';
import { callWorker } from '../helpers/call-worker';
import { useTestServices } from '../helpers/services';
import { testDataConverter, uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { waitFor } from '../helpers/wait-for';

/**
 * One call placed through the API is one trace: the request's span, the workflow start, the call
 * workflow, its activities and their outgoing HTTP, exported over OTLP/HTTP (JSON) to a local
 * receiver; the request's log lines carry the trace id.
 */

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}
interface OtlpExport {
  resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
}

const services = useTestServices();
const spans: OtlpSpan[] = [];
const logLines: Record<string, unknown>[] = [];
let receiver: Server;
let http: Server;
let tracing: Tracing;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.headers['content-type'] === 'application/json') {
        const exported = JSON.parse(body) as OtlpExport;
        for (const resource of exported.resourceSpans)
          for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  // The exporter keeps its connection alive: a socket the receiver closes after Node's default 5 s
  // idle, just as a batch is written on it, fails that export and drops its spans.
  receiver.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  // The receiver shares this loaded process: a batch it answers late must not be dropped as timed out.
  process.env.OTEL_EXPORTER_OTLP_TIMEOUT = '60000';
  tracing = startTracing(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}`, 'switchboard-test');
});

afterAll(async () => {
  await tracing.shutdown();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
});

it('follows a call from the API request through the workflow to the provider in one trace', async () => {
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const taskQueue = uniqueTaskQueue('tracing');
  const config = parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    SESSION_SECRET: TEST_SESSION_SECRET,
    SIGNUP_MAX_PER_ADDRESS: '1000000',
    TEMPORAL_TASK_QUEUE: taskQueue,
    PUBLIC_BASE_URL: baseUrl,
    SECRETS_KEY: TEST_SECRETS_KEY,
  });
  const logs = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        logLines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  // As api/main.ts builds it: the client continues the request's trace into the workflows it starts.
  const temporal = new Client({
    connection: services.temporal.client.connection,
    namespace: services.temporal.client.options.namespace,
    dataConverter: testDataConverter,
    interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] },
  });
  const app = createApp({
    config,
    dataSource: services.db.dataSource,
    temporal,
    logger: createLogger('info', 'api-test', logs),
    metrics: createMetrics(),
  });
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  const org = await callingOrganization(handle, { ring_seconds: 0, talk_seconds: 1 });

  // As `npm run build` bundles it: the tracing interceptors inside the workflow sandbox.
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    workflowInterceptorModules: [WORKFLOW_TRACING_MODULE],
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} },
  });
  const worker = await callWorker(services, {
    taskQueue,
    baseUrl,
    identity: 'e2e-tracing',
    worker: { workflowBundle: { code }, ...workerTracing(tracing) },
  });
  const runId = await worker.runUntil(async () => {
    const res = await request(handle)
      .post(`/api/v1/public/agent/${org.triggerPath}`)
      .set('X-API-Key', org.apiKey)
      .send({ phone_number: '+14155550123' });
    expect({ status: res.status, body: res.body as unknown }).toMatchObject({ status: 200 });
    await services.temporal.client.workflow.getHandle(callWorkflowId(res.body.workflow_run_id as number)).result();
    return res.body.workflow_run_id as number;
  });
  expect(runId).toEqual(expect.any(Number));

  const request$ = await waitFor(
    () => `the request's span among ${spans.map((span) => span.name).join(', ')}`,
    async () => {
      await tracing.spanProcessor.forceFlush();
      return spans.find((span) => span.name === 'POST /api/v1/public/agent/:uuid');
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
  const traced = await waitFor(
    () => `the call's spans in trace ${request$.traceId}: ${spans.map((span) => span.name).join(', ')}`,
    async () => {
      await tracing.spanProcessor.forceFlush();
      const names = spans.filter((span) => span.traceId === request$.traceId).map((span) => span.name);
      const wanted = ['StartWorkflow:callWorkflow', 'RunWorkflow:callWorkflow', 'RunActivity:placeCall'];
      return (
        wanted.every((name) => names.includes(name)) && names.some((name) => name.startsWith('POST 127.0.0.1')) && names
      );
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
  // The simulator's signed status webhooks carried the trace back into the API (past the signature check).
  expect(traced).toEqual(expect.arrayContaining(['RunActivity:concludeCall', 'ProviderWebhook:callStatus']));

  // Every log line the request wrote carries its trace id.
  const requestLines = logLines.filter((line) => line.path === `/api/v1/public/agent/${org.triggerPath}`);
  expect(requestLines.length).toBeGreaterThan(0);
  for (const line of requestLines) expect(line.trace_id).toBe(request$.traceId);
}, 180_000);
