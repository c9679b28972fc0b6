import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from '@temporalio/worker';
import request from 'supertest';
import { createActivities } from '../../activities';
import type { WebhookLogEntry } from '../../domain/webhooks/post-call-delivery';
import { verifySignatureHeader } from '../../domain/webhooks/signature';
import { converse } from '../../agent-runtime';
import { Run } from '../../entities';
import { parseConfig } from '../../platform/config';
import { Secrets } from '../../telephony/secrets';
import { callWorkflowId } from '../../workflows/definitions';
import { WEBHOOK_MAX_ATTEMPTS } from '../../workflows/post-call-webhooks';
import { createAgent } from '../helpers/agents';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, definitionWithTrigger, triggerPathOf, type CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { testDataConverter, testWorkflowBundle, uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const secrets = new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex'));

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** The customer's endpoint: records every request; `/flaky` fails twice, `/down` always, `/gone` answers 410. */
class Receiver {
  readonly received: Received[] = [];
  private readonly server: Server;
  private flakyFailures = 0;

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '';
        this.received.push({
          method: req.method ?? '',
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        });
        let status = 200;
        if (path === '/down') status = 500;
        if (path === '/gone') status = 410;
        if (path === '/flaky' && this.flakyFailures < 2) {
          this.flakyFailures += 1;
          status = 500;
        }
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'receiver unavailable');
      });
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${(this.server.address() as AddressInfo).port}${path}`;
  }

  to(path: string): Received[] {
    return this.received.filter((request) => request.path === path);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const webhookNode = (id: string, url: string, data: Record<string, unknown> = {}) => ({
  id,
  type: 'webhook',
  position: { x: 400, y: 0 },
  data: { name: `Webhook ${id}`, endpoint_url: url, ...data },
});

const PAYLOAD_TEMPLATE = {
  run_id: '{{workflow_run_id}}',
  status: '{{call_status}}',
  duration: '{{cost_info.call_duration_seconds}}',
  transcript: '{{transcript_url}}',
  summary: 'Called {{initial_context.first_name}} at {{initial_context.called_number}}: {{call_status}}',
  disposition: '{{gathered_context.mapped_call_disposition}}',
  email: '{{gathered_context.email | not collected}}',
};

const receiver = new Receiver();
let http: Server;
let baseUrl: string;
let app: ReturnType<typeof buildTestApp>['app'];
let org: CallingOrganization;
let taskQueue: string;
/** The organization's own signing secret, from the one answer that shows it. */
let signingSecret: string;

beforeAll(async () => {
  await receiver.listen();
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  taskQueue = uniqueTaskQueue('post-call-webhooks');
  app = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    { TEMPORAL_TASK_QUEUE: taskQueue, PUBLIC_BASE_URL: baseUrl, SECRETS_KEY: TEST_SECRETS_KEY },
  ).app;
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  org = await callingOrganization(app.callback(), { ring_seconds: 0, talk_seconds: 1 });
  const rotated = await request(app.callback())
    .post('/api/v1/organizations/webhook-signing-secret/rotate')
    .auth(org.owner.token, { type: 'bearer' });
  signingSecret = (rotated.body as { secret: string }).secret;
});

afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await receiver.close();
});

/** A worker configured from the environment as `workers/main.ts` does it. */
const createWorker = (env: Record<string, string>) => {
  const config = parseConfig({ NODE_ENV: 'test', ...env });
  return Worker.create({
    connection: services.temporal.nativeConnection,
    taskQueue,
    workflowBundle: testWorkflowBundle(),
    dataConverter: testDataConverter,
    activities: createActivities({
      dataSource: services.db.dataSource,
      workerIdentity: 'e2e-post-call-webhooks',
      calls: {
        secrets,
        settings: { publicBaseUrl: baseUrl, pricePerMinuteUsd: 0, pricePer1kTokensUsd: 0 },
        converse,
        temporal: services.temporal.client,
      },
      webhooks: {
        allowPrivate: config.ALLOW_PRIVATE_WEBHOOKS,
        limits: { timeoutMs: 2_000, deadlineMs: 5_000, maxAnswerBytes: 64 * 1024 },
      },
    }),
  });
};

/** Creates an agent with these webhook nodes, calls `number` through the API and waits for the workflow. */
async function callWith(worker: Worker, nodes: object[], number = '+14155550123'): Promise<Run> {
  const base = definitionWithTrigger();
  const agent = await createAgent(app.callback(), org.owner.token, { ...base, nodes: [...base.nodes, ...nodes] });
  return worker.runUntil(async () => {
    const res = await request(app.callback())
      .post(`/api/v1/public/agent/${triggerPathOf(agent)}`)
      .set('X-API-Key', org.apiKey)
      .send({ phone_number: number, initial_context: { first_name: 'Ada' } });
    expect(res.status).toBe(200);
    const runId = res.body.workflow_run_id as number;
    await services.temporal.client.workflow.getHandle(callWorkflowId(runId)).result();
    return services.db.dataSource.getRepository(Run).findOneByOrFail({ id: runId });
  });
}

const webhookLogs = (run: Run): Record<string, WebhookLogEntry> =>
  (run.logs.webhooks ?? {}) as Record<string, WebhookLogEntry>;

describe('post-call webhooks (ALLOW_PRIVATE_WEBHOOKS=true)', () => {
  let run: Run;

  beforeAll(async () => {
    const worker = await createWorker({ ALLOW_PRIVATE_WEBHOOKS: 'true' });
    run = await callWith(worker, [
      webhookNode('ok', receiver.url('/ok'), {
        payload_template: PAYLOAD_TEMPLATE,
        custom_headers: [{ key: 'X-Customer', value: 'for {{first_name}}' }],
      }),
      webhookNode('flaky', receiver.url('/flaky', 'localhost'), { http_method: 'PUT' }),
      webhookNode('down', receiver.url('/down')),
      webhookNode('gone', receiver.url('/gone')),
      webhookNode('off', receiver.url('/off'), { enabled: false }),
    ]);
  }, 90_000);

  it('posts the rendered payload with a valid signature after the call completes', () => {
    expect(run.isCompleted).toBe(true);
    const [delivery, ...more] = receiver.to('/ok');
    expect(more).toHaveLength(0);
    expect(delivery?.method).toBe('POST');
    expect(delivery?.headers['content-type']).toBe('application/json');
    expect(delivery?.headers['x-customer']).toBe('for Ada');
    expect(delivery?.headers['x-switchboard-delivery']).toBe(`run-${run.id}/ok`);
    expect(JSON.parse(delivery?.body ?? '')).toEqual({
      run_id: run.id,
      status: 'completed',
      duration: 1,
      transcript: run.transcriptUrl,
      summary: 'Called Ada at +14155550123: completed',
      disposition: run.disposition,
      email: 'not collected',
    });

    // What a receiver does (docs/guides/post-call-webhooks.md): HMAC-SHA256 over "<t>.<raw body>" with the organization's own secret.
    const header = String(delivery?.headers['x-switchboard-signature']);
    const [, timestamp, signature] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header) ?? [];
    const expected = createHmac('sha256', signingSecret).update(`${timestamp}.${delivery?.body}`).digest('hex');
    expect(signature).toBe(expected);
    expect(verifySignatureHeader(Buffer.from(signingSecret), delivery?.body ?? '', header)).toBe(true);
    expect(webhookLogs(run).ok).toMatchObject({ status: 'delivered', attempts: 1, http_status: 200, error: null });
  });

  it('retries with backoff until the receiver recovers', () => {
    const deliveries = receiver.to('/flaky');
    expect(deliveries.map((delivery) => delivery.method)).toEqual(['PUT', 'PUT', 'PUT']);
    // Without a payload_template the run's outcome and both contexts are sent.
    expect(JSON.parse(deliveries[2]?.body ?? '')).toMatchObject({
      workflow_run_id: run.id,
      call_status: 'completed',
      initial_context: { first_name: 'Ada' },
      gathered_context: { call_status: 'completed' },
    });
    expect(webhookLogs(run).flaky).toMatchObject({ status: 'delivered', attempts: 3, http_status: 200 });
  });

  it('records the final failure on the run once the attempts are spent', () => {
    expect(receiver.to('/down')).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    expect(webhookLogs(run).down).toMatchObject({
      node_id: 'down',
      url: receiver.url('/down'),
      status: 'failed',
      attempts: WEBHOOK_MAX_ATTEMPTS,
      http_status: 500,
      error: expect.stringContaining('answered 500'),
    });
  });

  it('does not retry a 4xx answer, and skips disabled nodes', () => {
    expect(receiver.to('/gone')).toHaveLength(1);
    expect(webhookLogs(run).gone).toMatchObject({ status: 'failed', attempts: 1, http_status: 410 });
    expect(receiver.to('/off')).toHaveLength(0);
    expect(webhookLogs(run).off).toBeUndefined();
  });
});

describe('post-call webhooks (ALLOW_PRIVATE_WEBHOOKS=false)', () => {
  it('refuses private and loopback targets without sending anything, and the call still completes', async () => {
    const before = receiver.received.length;
    const worker = await createWorker({ ALLOW_PRIVATE_WEBHOOKS: 'false' });
    const run = await callWith(worker, [
      webhookNode('loopback', receiver.url('/ok')),
      webhookNode('named', receiver.url('/ok', 'localhost')),
      webhookNode('mapped', receiver.url('/ok', '[::ffff:127.0.0.1]')),
    ]);
    expect(run.isCompleted).toBe(true);
    expect(run.gatheredContext.call_status).toBe('completed');
    expect(receiver.received.length).toBe(before);
    for (const node of ['loopback', 'named', 'mapped']) {
      expect(webhookLogs(run)[node]).toMatchObject({
        status: 'refused',
        attempts: 1,
        error: expect.stringContaining('ALLOW_PRIVATE_WEBHOOKS'),
      });
    }
  }, 60_000);
});
