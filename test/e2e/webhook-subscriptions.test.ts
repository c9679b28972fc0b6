import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { emitCallAnalyzed } from '../../domain/webhooks/call-analyzed';
import { deliveryStarter } from '../../domain/webhooks/delivery-workflow';
import { WebhookDeliveries } from '../../domain/webhooks/webhook-deliveries';
import { verifyV2 } from '../../domain/webhooks/signature-v2';
import { Secrets } from '../../telephony/secrets';
import { callWorkflowId } from '../../workflows/definitions';
import { callWorker } from '../helpers/call-worker';
import type { CallingOrganization } from '../helpers/calls';
import { campaignTestBed, insertCampaign, startCampaignWorkflow, type CampaignTestBed } from '../helpers/campaigns';
import { useTestServices } from '../helpers/services';
import { uniqueTaskQueue } from '../helpers/temporal';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { waitFor } from '../helpers/wait-for';

const services = useTestServices();
const taskQueue = uniqueTaskQueue('webhook-subscriptions');

interface Seen {
  path: string;
  url: string;
  method: string;
  headers: Record<string, string | undefined>;
  body: string;
  event: { id: string; type: string; data: Record<string, unknown> };
}

/** The customer's endpoint: `/flaky` fails twice, then takes everything. */
const seen: Seen[] = [];
let flakyFailures = 0;
let receiver: Server;
let port: number;
let bed: CampaignTestBed;
let org: CallingOrganization;
let secret: string;
const subscriptions: Record<string, string> = {};

const api = (method: 'get' | 'post', path: string) =>
  request(bed.baseUrl)[method](`/api/v1${path}`).auth(org.owner.token, { type: 'bearer' });

beforeAll(async () => {
  receiver = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const path = req.url ?? '';
      if (path === '/flaky' && flakyFailures < 2) {
        flakyFailures += 1;
        res.writeHead(503).end('try later');
        return;
      }
      seen.push({
        path,
        url: `http://127.0.0.1:${port}${path}`,
        method: req.method ?? '',
        headers: Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)])),
        body,
        event: JSON.parse(body) as Seen['event'],
      });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  port = (receiver.address() as AddressInfo).port;
  bed = await campaignTestBed(services, taskQueue, { ALLOW_PRIVATE_WEBHOOKS: 'true' });
  org = await bed.organization({ ring_seconds: 0, talk_seconds: 1 });
  secret = (await api('post', '/organizations/webhook-signing-secret/rotate')).body.secret as string;
  for (const [name, events, active] of [
    ['events', ['call.started', 'call.ended', 'campaign.completed', 'call_analyzed'], true],
    ['flaky', ['call.ended'], true],
    ['off', ['call.started', 'call.ended'], false],
  ] as const) {
    const res = await api('post', '/webhook-subscriptions').send({
      url: `http://127.0.0.1:${port}/${name}`,
      events,
      active,
    });
    expect(res.status).toBe(201);
    subscriptions[name] = res.body.subscription_uuid as string;
  }
});

afterAll(async () => {
  await bed.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const received = (path: string, type: string) =>
  seen.filter((entry) => entry.path === path && entry.event.type === type);

/** For `waitFor`: the requests received so far, or null while there are none. */
const arrived = (path: string, type: string) => {
  const found = received(path, type);
  return found.length > 0 ? found : null;
};

const deliveriesOf = async (name: string) =>
  (await api('get', `/webhook-subscriptions/${subscriptions[name]}/deliveries`)).body.deliveries as {
    event_type: string;
    status: string;
    attempts: { attempt: number; status_code: number | null; error: string | null }[];
  }[];

describe('organization webhook subscriptions, end to end', () => {
  it('send a call’s, a campaign’s and an analysis’s events, signed, retried, and logged', async () => {
    const worker = await callWorker(services, {
      taskQueue,
      baseUrl: bed.baseUrl,
      identity: 'webhook-subscriptions',
      webhooks: { allowPrivate: true },
    });
    await worker.runUntil(async () => {
      const placed = await request(bed.baseUrl)
        .post(`/api/v1/public/agent/${org.triggerPath}`)
        .set('X-API-Key', org.apiKey)
        .send({ phone_number: '+14155550123' });
      expect(placed.status).toBe(200);
      const runId = placed.body.workflow_run_id as number;
      await services.temporal.client.workflow.getHandle(callWorkflowId(runId)).result();

      const [started] = await waitFor('call.started', () => arrived('/events', 'call.started'), { timeoutMs: 60_000 });
      const [ended] = await waitFor('call.ended', () => arrived('/events', 'call.ended'), { timeoutMs: 60_000 });
      expect(started?.event.data).toMatchObject({ workflow_run_id: runId, direction: 'outbound', campaign_id: null });
      expect(ended?.event.data).toMatchObject({
        workflow_run_id: runId,
        call_status: 'completed',
        disposition: expect.any(String),
      });
      const key = Buffer.from(secret, 'utf8');
      for (const delivery of [started, ended]) {
        if (!delivery) throw new Error('missing delivery');
        expect(verifyV2(key, delivery)).toBe(true);
        expect(delivery.headers['x-switchboard-event']).toBe(delivery.event.type);
      }

      // Failed twice with 503, then delivered: three attempts in the log, one request received.
      const [flaky] = await waitFor(
        'the flaky delivery',
        async () => {
          const delivered = (await deliveriesOf('flaky')).filter((delivery) => delivery.status === 'delivered');
          return delivered.length > 0 ? delivered : null;
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      );
      expect(flaky?.attempts.map((attempt) => attempt.status_code)).toEqual([503, 503, 200]);
      expect(flaky?.attempts[0]?.error).toContain('answered 503: try later');
      expect(received('/flaky', 'call.ended')).toHaveLength(1);

      // A campaign of one contact completes.
      const { campaignId } = await insertCampaign(services.db.dataSource, org, [{ phoneNumber: '+14155550124' }]);
      const campaign = await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
      await campaign.result();
      const [completed] = await waitFor('campaign.completed', () => arrived('/events', 'campaign.completed'), {
        timeoutMs: 60_000,
      });
      expect(completed?.event.data).toMatchObject({
        campaign_id: campaignId,
        state: 'completed',
        reason: 'campaign_completed',
        processed_rows: 1,
      });

      // The analysis feature's event, emitted twice with one id: delivered once.
      const deliveries = new WebhookDeliveries({
        dataSource: services.db.dataSource,
        secrets: new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex')),
        allowPrivate: true,
        signV1: true,
        startDelivery: deliveryStarter(services.temporal.client, taskQueue),
      });
      const analysis = { organizationId: org.owner.user.organization_id, runId, analysis: { sentiment: 'positive' } };
      const eventId = '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
      expect(await emitCallAnalyzed(deliveries, { ...analysis, eventId })).toHaveLength(1);
      await emitCallAnalyzed(deliveries, { ...analysis, eventId });
      const [analyzed] = await waitFor('call_analyzed', () => arrived('/events', 'call_analyzed'), {
        timeoutMs: 60_000,
      });
      expect(analyzed?.event).toMatchObject({
        id: eventId,
        data: { workflow_run_id: runId, analysis: { sentiment: 'positive' } },
      });
      expect(verifyV2(key, analyzed as Seen)).toBe(true);
    });

    expect(received('/events', 'call_analyzed')).toHaveLength(1);
    expect(seen.filter((entry) => entry.path === '/off')).toHaveLength(0);
    const log = await deliveriesOf('events');
    expect(log.map((delivery) => delivery.event_type).sort()).toEqual(
      ['call.ended', 'call.ended', 'call.started', 'call.started', 'call_analyzed', 'campaign.completed'].sort(),
    );
    expect(log.every((delivery) => delivery.status === 'delivered')).toBe(true);
  }, 180_000);
});
