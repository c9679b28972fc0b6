import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import request from 'supertest';
import type { ToolCallLog } from '../../agent-runtime/tools';
import { verifyV2 } from '../../domain/webhooks/signature-v2';
import { Run } from '../../entities';
import { campaignWorkflowId } from '../../workflows/definitions';
import { createAgent, sampleDefinition } from '../helpers/agents';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { callWorker } from '../helpers/call-worker';
import { useTestServices } from '../helpers/services';
import { decryptedPayload, uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

/**
 * A simulated campaign whose agent looks each contact's order up with an HTTP tool on every call:
 * the shop's service checks each request (credential, idempotency key, signature), and the runs,
 * the usage report and the Temporal histories are read back for what they keep of it.
 */
const services = useTestServices();

const TOKEN = 'tok_shop_9d41c07be35a2f68';
const CONTACTS = [
  { phone: '+14155551301', name: 'Ada', order: 'A-101' },
  { phone: '+14155551302', name: 'Grace', order: 'A-102' },
  { phone: '+14155551303', name: 'Edsger', order: 'A-103' },
];

interface ShopRequest {
  path: string;
  idempotencyKey: string | undefined;
  signed: boolean;
  authorized: boolean;
  body: Record<string, unknown>;
}

const shopRequests: ShopRequest[] = [];
let shop: Server;
let shopPort: number;
let signingSecret = '';

let http: Server;
let app: ReturnType<typeof buildTestApp>['app'];
let org: CallingOrganization;
let taskQueue: string;

beforeAll(async () => {
  shop = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
      const path = req.url ?? '';
      shopRequests.push({
        path,
        idempotencyKey: headers['idempotency-key'],
        signed: verifyV2(Buffer.from(signingSecret, 'utf8'), {
          method: req.method ?? '',
          url: `http://127.0.0.1:${shopPort}${path}`,
          headers,
          body,
        }),
        authorized: headers.authorization === `Bearer ${TOKEN}`,
        body: JSON.parse(body) as Record<string, unknown>,
      });
      const order = decodeURIComponent(path.split('/').at(-1) ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ order, status: 'shipped' }));
    });
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopPort = (shop.address() as AddressInfo).port;

  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  taskQueue = uniqueTaskQueue('campaign-tools');
  app = buildTestApp(
    { dataSource: services.db.dataSource, temporal: services.temporal.client },
    {
      TEMPORAL_TASK_QUEUE: taskQueue,
      PUBLIC_BASE_URL: baseUrl,
      SECRETS_KEY: TEST_SECRETS_KEY,
      ALLOW_PRIVATE_WEBHOOKS: 'true',
    },
  ).app;
  const handle = app.callback();
  http.on('request', (req, res) => void handle(req, res));
  org = await callingOrganization(handle, { ring_seconds: 0, talk_seconds: 1 });
});

afterAll(async () => {
  await new Promise<void>((resolve) => http.close(() => resolve()));
  await new Promise<void>((resolve) => shop.close(() => resolve()));
});

const api = (method: 'get' | 'post', path: string) =>
  request(app.callback())[method](`/api/v1${path}`).auth(org.owner.token, { type: 'bearer' });

/** The tool, on the start node: the offline policy calls it as the call opens, with the contact's order id. */
async function orderAgent(): Promise<number> {
  signingSecret = (await api('post', '/organizations/webhook-signing-secret/rotate').send({})).body.secret as string;
  const credential = await api('post', '/credentials').send({
    name: 'Shop',
    credential_type: 'bearer_token',
    credential_data: { token: TOKEN },
  });
  expect(credential.status).toBe(201);
  const tool = await api('post', '/tools').send({
    name: 'Order status',
    description: 'Looks up an order by its number.',
    definition: {
      type: 'http_api',
      config: {
        method: 'POST',
        url: `http://127.0.0.1:${shopPort}/orders/{{order_id}}`,
        credential_uuid: credential.body.uuid as string,
        parameters: [{ name: 'order_id', type: 'string', description: 'The order number', required: true }],
        preset_parameters: [{ name: 'customer', type: 'string', value_template: '{{initial_context.first_name}}' }],
      },
    },
  });
  expect(tool.status).toBe(201);
  const definition = sampleDefinition('Hello {{first_name}}, about your order.');
  const [start, ...rest] = definition.nodes;
  const agent = await createAgent(
    app.callback(),
    org.owner.token,
    { ...definition, nodes: [{ ...start, data: { ...start?.data, tool_uuids: [tool.body.tool_uuid] } }, ...rest] },
    'Order campaign agent',
  );
  return agent.id;
}

/** Every event of a workflow's history, as Temporal keeps it (payloads encrypted). */
async function rawHistory(workflowId: string): Promise<temporal.api.history.v1.IHistoryEvent[]> {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await services.temporal.client.workflowService.getWorkflowExecutionHistory({
      namespace: 'default',
      execution: { workflowId },
      nextPageToken,
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return events;
}

/** Every payload in a history, at any depth. */
function payloadsIn(value: unknown): Payload[] {
  if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return [];
  const record = value as Record<string, unknown>;
  if (record.metadata && typeof record.metadata === 'object' && 'data' in record) return [record];
  return Object.values(record).flatMap(payloadsIn);
}

/** A history's bytes as stored, and its payloads decrypted with the service's key (as a codec server shows them). */
async function historyText(workflowId: string): Promise<{ stored: string; decoded: string }> {
  const events = await rawHistory(workflowId);
  return {
    stored: Buffer.from(temporal.api.history.v1.History.encode({ events }).finish()).toString('latin1'),
    decoded: payloadsIn(events)
      .map((payload) => Buffer.from(decryptedPayload(payload).data ?? []).toString('utf8'))
      .join('\n'),
  };
}

describe('a simulated campaign whose agent calls an HTTP tool on every call', () => {
  let campaignId: number;
  let runs: Run[];

  beforeAll(async () => {
    const agentId = await orderAgent();
    const csv = ['phone_number,first_name,order_id', ...CONTACTS.map((c) => `${c.phone},${c.name},${c.order}`)].join(
      '\n',
    );
    const source = await api('post', '/campaign/sources?file_name=orders.csv')
      .set('Content-Type', 'text/csv')
      .send(csv);
    expect(source.status).toBe(201);
    const created = await api('post', '/campaign/create').send({
      name: 'Order updates',
      workflow_id: agentId,
      source_type: 'csv',
      source_id: source.body.source_id as string,
      retry_config: { enabled: false, max_retries: 0, retry_delay_seconds: 1 },
    });
    expect(created.status).toBe(201);
    campaignId = created.body.id as number;
    const worker = await callWorker(services, {
      taskQueue,
      baseUrl: 'http://127.0.0.1:9',
      identity: 'campaign-tools',
      allowPrivateWebhooks: true,
    });
    await worker.runUntil(async () => {
      expect((await api('post', `/campaign/${campaignId}/start`)).status).toBe(200);
      await services.temporal.client.workflow.getHandle(campaignWorkflowId(campaignId)).result();
    });
    runs = await services.db.dataSource.getRepository(Run).findBy({ campaignId });
  }, 150_000);

  it('calls the tool on every call, authenticated, signed, and keyed by run', () => {
    expect(runs).toHaveLength(CONTACTS.length);
    // A step that ran the conversation may run again (local activities run at least once): a repeat
    // carries the same key, so the shop can drop it.
    expect(shopRequests.length).toBeGreaterThanOrEqual(CONTACTS.length);
    expect(new Set(shopRequests.map((entry) => entry.path))).toEqual(
      new Set(CONTACTS.map((c) => `/orders/${c.order}`)),
    );
    for (const entry of shopRequests) {
      expect(entry).toMatchObject({ signed: true, authorized: true });
      expect(entry.body).toEqual({ order_id: expect.any(String), customer: expect.any(String) });
    }
    expect(new Set(shopRequests.map((entry) => entry.idempotencyKey))).toEqual(
      new Set(runs.map((run) => `run-${run.id}-tool-1`)),
    );
  });

  it('keeps every call on its run: logs.tool_calls, a transcript event and the usage count', async () => {
    for (const run of runs) {
      const contact = CONTACTS.find((c) => c.phone === run.calledNumber);
      expect(run.gatheredContext.call_status).toBe('completed');
      expect(run.logs.tool_calls as ToolCallLog[]).toEqual([
        expect.objectContaining({
          sequence: 1,
          function: 'order_status',
          arguments: { order_id: contact?.order },
          status: 'ok',
          status_code: 200,
          node_id: 'start',
        }),
      ]);
      expect(run.usageInfo.tool_calls).toEqual({ total: 1, failed: 0 });
      const transcript = await api('get', `/workflow/${run.agentId}/runs/${run.id}/transcript`);
      expect(transcript.text).toContain(`tool: order_status({"order_id":"${contact?.order}"}) → ok 200`);
      // The agent said what the tool answered.
      expect(transcript.text).toContain(
        `assistant: Hello ${contact?.name}, about your order. order is ${contact?.order}`,
      );
    }
    const usage = await api('get', '/organizations/usage/runs').query({
      filters: JSON.stringify([{ attribute: 'campaignId', type: 'number', value: { value: campaignId } }]),
    });
    expect(usage.status).toBe(200);
    expect(usage.body.total_tool_calls).toBe(CONTACTS.length);
    for (const item of usage.body.runs as { tool_calls: number }[]) expect(item.tool_calls).toBe(1);
  });

  it('never lets the credential reach the runs or the Temporal histories, decoded or not', async () => {
    const rows = await services.db.dataSource.query<unknown[]>('SELECT * FROM runs WHERE campaign_id = $1', [
      campaignId,
    ]);
    expect(JSON.stringify(rows)).not.toContain(TOKEN);
    const workflowIds = [campaignWorkflowId(campaignId), ...runs.map((run) => run.temporalWorkflowId ?? '')];
    for (const workflowId of workflowIds) {
      const { stored, decoded } = await historyText(workflowId);
      // The decoding worked: the workflow's own input is there to be read.
      expect(decoded).toMatch(/"(runId|campaignId)":\d+/);
      expect({ workflowId, stored: stored.includes(TOKEN), decoded: decoded.includes(TOKEN) }).toEqual({
        workflowId,
        stored: false,
        decoded: false,
      });
    }
  });
});
