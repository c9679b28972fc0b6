import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MockActivityEnvironment } from '@temporalio/testing';
import request from 'supertest';
import { createWebhookActivities } from '../../activities/webhook.activities';
import { verifySignatureHeader } from '../../domain/webhooks/signature';
import { verifyV2 } from '../../domain/webhooks/signature-v2';
import { AgentVersionCache } from '../../domain/agents/version-cache';
import { Secrets } from '../../telephony/secrets';
import { signUp, type SignedUp } from '../helpers/accounts';
import { createAgent, insertRun, sampleDefinition } from '../helpers/agents';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';
import { waitFor } from '../helpers/wait-for';

const services = useTestServices();
/** Short, so the test can see the overlap end. */
const OVERLAP_SECONDS = 2;
const server = () =>
  services.server({ SECRETS_KEY: TEST_SECRETS_KEY, WEBHOOK_SECRET_ROTATION_OVERLAP_SECONDS: String(OVERLAP_SECONDS) });
const PATH = '/api/v1/organizations/webhook-signing-secret';

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Every tenant's receiver, one path each. */
const received: Delivery[] = [];
const receiver: Server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
    res.writeHead(200).end('ok');
  });
});

interface Tenant {
  owner: SignedUp;
  runId: number;
  path: string;
}

let activities: ReturnType<typeof createWebhookActivities>;
let a: Tenant;
let b: Tenant;

/** A tenant with an agent whose webhook node posts to `path` on the receiver, and one finished run. */
async function tenant(path: string): Promise<Tenant> {
  const owner = await signUp(server());
  const base = sampleDefinition();
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}${path}`;
  const agent = await createAgent(server(), owner.token, {
    ...base,
    nodes: [
      ...base.nodes,
      { id: 'hook', type: 'webhook', position: { x: 0, y: 300 }, data: { name: 'Hook', endpoint_url: url } },
    ],
  });
  const runId = await insertRun(services.db.dataSource, {
    organizationId: owner.user.organization_id,
    workflowId: agent.id,
    definitionId: agent.current_definition_id,
  });
  return { owner, runId, path };
}

/** Runs the delivery activity as the worker does and answers what the tenant's receiver got. */
async function deliver({ runId, path }: Tenant): Promise<Delivery> {
  const before = received.length;
  await new MockActivityEnvironment().run(
    (input: { runId: number; nodeId: string }) => activities.deliverPostCallWebhook(input),
    {
      runId,
      nodeId: 'hook',
    },
  );
  const delivery = received.slice(before).find((candidate) => candidate.path === path);
  if (!delivery) throw new Error(`nothing reached ${path}`);
  return delivery;
}

const receiverUrl = (path: string): string => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}${path}`;

/** The `v2` check of a receiver at `path` (its own URL by default). */
const verifiesV2 = (secret: string, { headers, body, path }: Delivery, at = path): boolean =>
  verifyV2(Buffer.from(secret, 'utf8'), {
    method: 'POST',
    url: receiverUrl(at),
    body,
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)])),
  });

/** Both schemes give the same verdict on every delivery. */
const verifies = (secret: string, delivery: Delivery): boolean => {
  const v1 = verifySignatureHeader(
    Buffer.from(secret, 'utf8'),
    delivery.body,
    String(delivery.headers['x-switchboard-signature']),
  );
  expect(verifiesV2(secret, delivery)).toBe(v1);
  return v1;
};

const rotate = async (owner: SignedUp): Promise<{ secret: string; previous_secret_expires_at: string | null }> => {
  const res = await request(server()).post(`${PATH}/rotate`).auth(owner.token, { type: 'bearer' });
  expect(res.status).toBe(200);
  return res.body as { secret: string; previous_secret_expires_at: string | null };
};

const read = (owner: SignedUp) => request(server()).get(PATH).auth(owner.token, { type: 'bearer' });

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  activities = createWebhookActivities({
    dataSource: services.db.dataSource,
    versions: new AgentVersionCache(services.db.dataSource),
    secrets: new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex')),
    allowPrivate: true,
  });
  [a, b] = await Promise.all([tenant('/tenant-a'), tenant('/tenant-b')]);
});

afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

describe("each organization's own post-call webhook signing secret", () => {
  let secretA: string;
  let secretB: string;

  it('is shown in full only by the rotation that creates it, and stored sealed', async () => {
    expect((await read(a.owner)).status).toBe(404);
    const created = await rotate(a.owner);
    secretA = created.secret;
    expect(secretA).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(created.previous_secret_expires_at).toBeNull();

    const shown = await read(a.owner);
    expect(shown.status).toBe(200);
    expect(shown.body.secret).toBe(`whsec_${'*'.repeat(39)}${secretA.slice(-4)}`);
    expect(JSON.stringify(shown.body)).not.toContain(secretA.slice(6, 30));
    const stored = await services.db.dataSource.query<{ row: string }[]>(
      'SELECT row_to_json(s)::text AS row FROM organization_webhook_secrets s WHERE organization_id = $1',
      [a.owner.user.organization_id],
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]?.row).not.toContain(secretA.slice(6));
  });

  it("signs a tenant's deliveries so they verify with its secret and never with another tenant's", async () => {
    secretB = (await rotate(b.owner)).secret;
    expect(secretB).not.toBe(secretA);
    const toA = await deliver(a);
    const toB = await deliver(b);
    expect(verifies(secretA, toA)).toBe(true);
    expect(verifies(secretB, toB)).toBe(true);
    // A receiver holding B's secret cannot produce or pass off anything A's receiver accepts.
    expect(verifies(secretB, toA)).toBe(false);
    expect(verifies(secretA, toB)).toBe(false);
    expect(String(toA.headers['x-switchboard-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(toA.headers['webhook-id']).toBe(`run-${a.runId}/hook`);
    expect(toA.headers['webhook-timestamp']).toBe(String(toA.headers['x-switchboard-signature']).slice(2, 12));
    expect(String(toA.headers['webhook-signature'])).toMatch(/^v2,[A-Za-z0-9+/]{43}=$/);
  });

  it('signs the method, URL and delivery id in v2: a delivery replayed elsewhere passes v1 only', async () => {
    const toA = await deliver(a);
    // The same bytes posted to another endpoint of A's receiver: the body-only v1 cannot tell.
    expect(
      verifySignatureHeader(Buffer.from(secretA, 'utf8'), toA.body, String(toA.headers['x-switchboard-signature'])),
    ).toBe(true);
    expect(verifiesV2(secretA, toA, '/tenant-a/admin')).toBe(false);
    expect(verifiesV2(secretA, toA, `${a.path}?replayed=1`)).toBe(false);
    expect(verifiesV2(secretA, { ...toA, headers: { ...toA.headers, 'webhook-id': `run-${a.runId + 1}/hook` } })).toBe(
      false,
    );
    expect(verifiesV2(secretA, toA)).toBe(true);
  });

  it('cannot be read or rotated by another tenant: its calls only ever reach its own secret', async () => {
    const aBefore = (await read(a.owner)).body as { secret: string; created_at: string };
    // B rotates (its own) and reads (its own): A's secret is untouched and still signs A's deliveries alone.
    const rotatedB = await rotate(b.owner);
    expect(rotatedB.secret).not.toBe(secretA);
    expect((await read(b.owner)).body.secret).not.toBe(aBefore.secret);
    expect((await read(a.owner)).body).toEqual({ ...aBefore, previous_secret_expires_at: null });
    const toA = await deliver(a);
    expect(verifies(secretA, toA)).toBe(true);
    expect(verifies(rotatedB.secret, toA)).toBe(false);
    expect(String(toA.headers['x-switchboard-signature']).match(/v1=/g)).toHaveLength(1);
    secretB = rotatedB.secret;
  });

  it('cannot be rotated by a read-only API key', async () => {
    const key = await request(server())
      .post('/api/v1/user/api-keys')
      .auth(a.owner.token, { type: 'bearer' })
      .send({ name: 'reader', scope: 'read' });
    expect(key.status).toBe(201);
    const rotated = await request(server())
      .post(`${PATH}/rotate`)
      .set('X-API-Key', key.body.api_key as string);
    expect(rotated.status).toBe(403);
    const shown = await request(server())
      .get(PATH)
      .set('X-API-Key', key.body.api_key as string);
    expect(shown.status).toBe(200);
    expect(shown.body.secret).not.toBe(secretA);
  });

  it('after a rotation, signs with both secrets during the overlap and with the new one only after it', async () => {
    const rotated = await rotate(a.owner);
    const overlapEnd = Date.parse(rotated.previous_secret_expires_at ?? '');
    expect(overlapEnd - Date.now()).toBeLessThanOrEqual(OVERLAP_SECONDS * 1000);
    expect((await read(a.owner)).body.previous_secret_expires_at).toBe(rotated.previous_secret_expires_at);

    const during = await deliver(a);
    expect(String(during.headers['x-switchboard-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(String(during.headers['webhook-signature'])).toMatch(/^v2,\S{44} v2,\S{44}$/);
    expect(verifies(rotated.secret, during)).toBe(true);
    expect(verifies(secretA, during)).toBe(true);
    expect(verifies(secretB, during)).toBe(false);

    await waitFor('the overlap to end', () => Date.now() > overlapEnd + 100);
    const after = await deliver(a);
    expect(verifies(rotated.secret, after)).toBe(true);
    expect(verifies(secretA, after)).toBe(false);
    expect((await read(a.owner)).body.previous_secret_expires_at).toBeNull();
  });

  it('is created on first need, once, when deliveries come before any rotation', async () => {
    const c = await tenant('/tenant-c');
    const [first, second] = await Promise.all([deliver(c), deliver(c)]);
    const rows = await services.db.dataSource.query<{ count: string }[]>(
      'SELECT count(*) FROM organization_webhook_secrets WHERE organization_id = $1',
      [c.owner.user.organization_id],
    );
    expect(rows[0]?.count).toBe('1');
    // Both signed under the same (never shown) secret; neither verifies with another tenant's.
    expect(String(first.headers['x-switchboard-signature']).split(',')[1]).toBeDefined();
    expect(verifies(secretA, first)).toBe(false);
    expect(verifies(secretB, second)).toBe(false);
    expect((await read(c.owner)).status).toBe(200);
  });

  it('stops sending the deprecated v1 header when WEBHOOK_SIGNATURE_V1 is off', async () => {
    const v2Only = createWebhookActivities({
      dataSource: services.db.dataSource,
      versions: new AgentVersionCache(services.db.dataSource),
      secrets: new Secrets(Buffer.from(TEST_SECRETS_KEY, 'hex')),
      allowPrivate: true,
      signV1: false,
    });
    const before = received.length;
    await new MockActivityEnvironment().run(
      (input: { runId: number; nodeId: string }) => v2Only.deliverPostCallWebhook(input),
      { runId: a.runId, nodeId: 'hook' },
    );
    const delivery = received.slice(before).find((candidate) => candidate.path === a.path);
    expect(delivery?.headers['x-switchboard-signature']).toBeUndefined();
    expect(delivery?.headers['webhook-signature']).toMatch(/^v2,/);
  });
});
