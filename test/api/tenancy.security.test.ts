import request from 'supertest';
import { createRoutes } from '../../api/app';
import { createAuthServices } from '../../api/auth/auth-services';
import { buildTestApp } from '../helpers/app';
import { createApiKey, signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { createAgent, insertCampaign, insertRun } from '../helpers/agents';
import { definitionWithTrigger, triggerPathOf } from '../helpers/calls';
import { createPhoneNumber, createTelephonyConfig } from '../helpers/telephony';
import { connectTestTemporal, type TestTemporal } from '../helpers/temporal';
import { createTestDatabase, type TestDatabase } from '../helpers/test-db';

/** Ids of resources that organization A owns; later features add theirs. */
export interface OwnedIds {
  apiKeyId: number;
  telephonyConfigId: number;
  phoneNumberId: number;
  workflowId: number;
  runId: number;
  workflowUuid: string;
  triggerPath: string;
  campaignId: number;
  doNotCallEntryId: number;
  credentialUuid: string;
  toolUuid: string;
  webhookSubscriptionUuid: string;
  sourceId: string;
  /** An ended text chat session of A's agent. */
  textChatRunId: number;
  /** An archived agent of A: its session start stops at 409, past the ownership check. */
  archivedWorkflowId: number;
  documentUuid: string;
}

export interface OrgScopedRoute {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Full path to one of A's resources. */
  path: (ids: OwnedIds) => string;
  /** A valid body, so the answer is about ownership and not validation. */
  body?: object;
  /** What A itself gets, when not 200 (a create answers 201). */
  ownerStatus?: number;
  /** The route accepts only `X-API-Key`: it is called with the caller's API key. */
  apiKeyOnly?: boolean;
}

/** Every route that takes a resource id: organization B must get 404 on each of A's ids. */
export const orgScopedRoutes: OrgScopedRoute[] = [
  { method: 'delete', path: (ids) => `/api/v1/user/api-keys/${ids.apiKeyId}` },
  { method: 'get', path: (ids) => `/api/v1/workflow/fetch/${ids.workflowId}` },
  { method: 'put', path: (ids) => `/api/v1/workflow/${ids.workflowId}`, body: { name: 'renamed by A' } },
  { method: 'put', path: (ids) => `/api/v1/workflow/${ids.workflowId}/status`, body: { status: 'active' } },
  { method: 'get', path: (ids) => `/api/v1/workflow/${ids.workflowId}/versions` },
  { method: 'post', path: (ids) => `/api/v1/workflow/${ids.workflowId}/validate`, body: {} },
  { method: 'get', path: (ids) => `/api/v1/workflow/${ids.workflowId}/runs` },
  { method: 'get', path: (ids) => `/api/v1/workflow/${ids.workflowId}/runs/${ids.runId}` },
  { method: 'get', path: (ids) => `/api/v1/workflow/${ids.workflowId}/runs/${ids.runId}/transcript` },
  // A's own web call starts (a run waiting for its browser).
  { method: 'post', path: (ids) => `/api/v1/workflow/${ids.workflowId}/web-call`, body: {} },
  // A's run has no recording: A gets 404 "Recording not found", past the ownership check.
  {
    method: 'get',
    path: (ids) => `/api/v1/workflow/${ids.workflowId}/runs/${ids.runId}/recording`,
    ownerStatus: 404,
  },
  // A has no default outbound configuration: its own calls stop at 400, past the ownership checks.
  {
    method: 'post',
    path: (ids) => `/api/v1/public/agent/${ids.triggerPath}`,
    body: { phone_number: '+14155550123' },
    ownerStatus: 400,
    apiKeyOnly: true,
  },
  {
    method: 'post',
    path: (ids) => `/api/v1/public/agent/workflow/${ids.workflowUuid}`,
    body: { phone_number: '+14155550123' },
    ownerStatus: 400,
    apiKeyOnly: true,
  },
  // A's campaign is a draft and A has no default outbound configuration yet: start stops at 400, pause and resume
  // at 409 (wrong state), redial at 409 (not finished); cancel (last of these) cancels it.
  { method: 'get', path: (ids) => `/api/v1/campaign/${ids.campaignId}` },
  { method: 'patch', path: (ids) => `/api/v1/campaign/${ids.campaignId}`, body: { name: 'renamed by A' } },
  { method: 'get', path: (ids) => `/api/v1/campaign/${ids.campaignId}/progress` },
  { method: 'get', path: (ids) => `/api/v1/campaign/${ids.campaignId}/runs` },
  { method: 'post', path: (ids) => `/api/v1/campaign/${ids.campaignId}/start`, ownerStatus: 400 },
  { method: 'post', path: (ids) => `/api/v1/campaign/${ids.campaignId}/pause`, ownerStatus: 409 },
  { method: 'post', path: (ids) => `/api/v1/campaign/${ids.campaignId}/resume`, ownerStatus: 409 },
  { method: 'post', path: (ids) => `/api/v1/campaign/${ids.campaignId}/redial`, body: {}, ownerStatus: 409 },
  { method: 'post', path: (ids) => `/api/v1/campaign/${ids.campaignId}/cancel` },
  { method: 'get', path: (ids) => `/api/v1/organizations/telephony-configs/${ids.telephonyConfigId}` },
  {
    method: 'put',
    path: (ids) => `/api/v1/organizations/telephony-configs/${ids.telephonyConfigId}`,
    body: { name: 'renamed by A' },
  },
  {
    method: 'post',
    path: (ids) => `/api/v1/organizations/telephony-configs/${ids.telephonyConfigId}/set-default-outbound`,
  },
  { method: 'get', path: (ids) => `/api/v1/organizations/telephony-configs/${ids.telephonyConfigId}/phone-numbers` },
  {
    method: 'post',
    path: (ids) => `/api/v1/organizations/telephony-configs/${ids.telephonyConfigId}/phone-numbers`,
    body: { address: '+14155550999' },
    ownerStatus: 201,
  },
  {
    method: 'get',
    path: (ids) =>
      `/api/v1/organizations/telephony-configs/${ids.telephonyConfigId}/phone-numbers/${ids.phoneNumberId}`,
  },
  {
    method: 'put',
    path: (ids) =>
      `/api/v1/organizations/telephony-configs/${ids.telephonyConfigId}/phone-numbers/${ids.phoneNumberId}`,
    body: { label: 'relabelled by A' },
  },
  {
    method: 'post',
    path: (ids) =>
      `/api/v1/organizations/telephony-configs/${ids.telephonyConfigId}/phone-numbers/${ids.phoneNumberId}/set-default-caller`,
  },
  {
    method: 'delete',
    path: (ids) =>
      `/api/v1/organizations/telephony-configs/${ids.telephonyConfigId}/phone-numbers/${ids.phoneNumberId}`,
  },
  // Last: deleting the configuration deletes its numbers.
  { method: 'delete', path: (ids) => `/api/v1/organizations/telephony-configs/${ids.telephonyConfigId}` },
  { method: 'delete', path: (ids) => `/api/v1/organizations/do-not-call/${ids.doNotCallEntryId}` },
  // Keyed by provider, not id: A has a deepgram key, B has none.
  { method: 'get', path: (ids) => `/api/v1/credentials/${ids.credentialUuid}` },
  { method: 'put', path: (ids) => `/api/v1/credentials/${ids.credentialUuid}`, body: { description: 'edited by A' } },
  { method: 'delete', path: (ids) => `/api/v1/credentials/${ids.credentialUuid}` },
  { method: 'get', path: () => '/api/v1/organizations/speech-credentials/deepgram' },
  { method: 'delete', path: () => '/api/v1/organizations/speech-credentials/deepgram' },
  { method: 'get', path: (ids) => `/api/v1/tools/${ids.toolUuid}` },
  { method: 'put', path: (ids) => `/api/v1/tools/${ids.toolUuid}`, body: toolOfA('edited by A') },
  // The host does not resolve here: the exchange answers what the model would be told, 200.
  { method: 'post', path: (ids) => `/api/v1/tools/${ids.toolUuid}/test`, body: {} },
  { method: 'delete', path: (ids) => `/api/v1/tools/${ids.toolUuid}` },
  { method: 'post', path: (ids) => `/api/v1/tools/${ids.toolUuid}/unarchive` },
  { method: 'get', path: (ids) => `/api/v1/knowledge-base/documents/${ids.documentUuid}` },
  { method: 'delete', path: (ids) => `/api/v1/knowledge-base/documents/${ids.documentUuid}` },
  { method: 'get', path: (ids) => `/api/v1/webhook-subscriptions/${ids.webhookSubscriptionUuid}` },
  {
    method: 'put',
    path: (ids) => `/api/v1/webhook-subscriptions/${ids.webhookSubscriptionUuid}`,
    body: subscriptionOfA('edited by A'),
  },
  { method: 'get', path: (ids) => `/api/v1/webhook-subscriptions/${ids.webhookSubscriptionUuid}/deliveries` },
  // The host does not resolve here: the test delivery is logged as refused, 200.
  { method: 'post', path: (ids) => `/api/v1/webhook-subscriptions/${ids.webhookSubscriptionUuid}/test` },
  { method: 'delete', path: (ids) => `/api/v1/webhook-subscriptions/${ids.webhookSubscriptionUuid}` },
  // A's campaign was cancelled above, so its list and then the campaign itself may be deleted.
  { method: 'delete', path: (ids) => `/api/v1/campaign/sources/${ids.sourceId}` },
  { method: 'delete', path: (ids) => `/api/v1/campaign/${ids.campaignId}` },
  {
    method: 'post',
    path: (ids) => `/api/v1/workflow/${ids.archivedWorkflowId}/text-chat/sessions`,
    body: {},
    ownerStatus: 409,
  },
  { method: 'get', path: (ids) => `/api/v1/workflow/${ids.workflowId}/text-chat/sessions/${ids.textChatRunId}` },
  // A's session has ended: it takes no message, rewind or end.
  {
    method: 'post',
    path: (ids) => `/api/v1/workflow/${ids.workflowId}/text-chat/sessions/${ids.textChatRunId}/messages`,
    body: { text: 'Hello' },
    ownerStatus: 409,
  },
  {
    method: 'post',
    path: (ids) => `/api/v1/workflow/${ids.workflowId}/text-chat/sessions/${ids.textChatRunId}/rewind`,
    body: { to_turn: 0 },
    ownerStatus: 409,
  },
  {
    method: 'post',
    path: (ids) => `/api/v1/workflow/${ids.workflowId}/text-chat/sessions/${ids.textChatRunId}/end`,
    ownerStatus: 409,
  },
  // A's run has not ended and its agent has no QA node: A is answered 409, B 404.
  { method: 'post', path: (ids) => `/api/v1/workflow-run/${ids.runId}/analysis`, ownerStatus: 409 },
  // Last: erasing the run empties it (its recording first).
  { method: 'delete', path: (ids) => `/api/v1/workflow/${ids.workflowId}/runs/${ids.runId}/recording` },
  { method: 'delete', path: (ids) => `/api/v1/workflow/${ids.workflowId}/runs/${ids.runId}` },
];

/** A tool of organization A; its host is never reached (it does not resolve here). */
function toolOfA(name = 'of A') {
  return {
    name,
    definition: { type: 'http_api', config: { method: 'GET', url: 'https://tools.example.invalid/orders' } },
  };
}

/** A webhook subscription of organization A; its host is never reached (it does not resolve here). */
function subscriptionOfA(description = 'of A') {
  return { url: 'https://hooks.example.invalid/events', events: ['call.ended'], description };
}

/**
 * Routes with a path parameter that is not one of A's resources: the same path names each
 * organization's own row, so B's call acts on B's. Their isolation is tested in their own file.
 */
const notIdScoped = [
  'PUT /organizations/speech-credentials/{provider}', // test/api/speech-credentials.test.ts, "another organization"
];

/** Creates one of each resource in the organization of `owner`. */
async function createOwnedResources(app: TestServer, owner: SignedUp): Promise<OwnedIds> {
  const { id: apiKeyId } = await createApiKey(app, owner.token, 'owned by A');
  const { id: telephonyConfigId } = await createTelephonyConfig(app, owner.token);
  const { id: phoneNumberId } = await createPhoneNumber(app, owner.token, telephonyConfigId, {
    address: '+14155550998',
  });
  await request(app)
    .put('/api/v1/organizations/speech-credentials/deepgram')
    .auth(owner.token, { type: 'bearer' })
    .send({ api_key: 'deepgram-key-of-a' })
    .expect(201);
  const { body: listed } = await request(app)
    .post('/api/v1/organizations/do-not-call')
    .auth(owner.token, { type: 'bearer' })
    .send({ phone_number: '+14155550997', reason: 'listed by A' })
    .expect(201);
  const { body: credential } = await request(app)
    .post('/api/v1/credentials')
    .auth(owner.token, { type: 'bearer' })
    .send({ name: 'of A', credential_type: 'bearer_token', credential_data: { token: 'token-of-a' } })
    .expect(201);
  const { body: tool } = await request(app)
    .post('/api/v1/tools')
    .auth(owner.token, { type: 'bearer' })
    .send(toolOfA())
    .expect(201);
  const { body: document } = await request(app)
    .post('/api/v1/knowledge-base/documents')
    .auth(owner.token, { type: 'bearer' })
    .attach('file', Buffer.from('# Opening hours\n\nWe open at 9 am.\n'), 'hours.md')
    .expect(201);
  const { body: subscription } = await request(app)
    .post('/api/v1/webhook-subscriptions')
    .auth(owner.token, { type: 'bearer' })
    .send(subscriptionOfA())
    .expect(201);
  const agent = await createAgent(app, owner.token, definitionWithTrigger());
  const runId = await insertRun(db.dataSource, {
    workflowId: agent.id,
    definitionId: agent.current_definition_id,
    organizationId: owner.user.organization_id,
  });
  const [textChat] = await db.dataSource.query<{ id: number }[]>(
    `INSERT INTO runs (organization_id, workflow_id, definition_id, name, mode, state, is_completed, logs)
     VALUES ($1, $2, $3, 'chat of A', 'text_chat', 'completed', true, '{"transcript": [], "ended_by": "end_node"}')
     RETURNING id`,
    [owner.user.organization_id, agent.id, agent.current_definition_id],
  );
  const archived = await createAgent(app, owner.token, undefined, 'Archived agent of A');
  await request(app)
    .put(`/api/v1/workflow/${archived.id}/status`)
    .auth(owner.token, { type: 'bearer' })
    .send({ status: 'archived' })
    .expect(200);
  const campaignId = await insertCampaign(db.dataSource, owner.user.organization_id, agent.id);
  const [campaign] = await db.dataSource.query<{ source_id: string }[]>(
    'SELECT source_id FROM campaigns WHERE id = $1',
    [campaignId],
  );
  // A recording to delete (the file itself is absent; removing an absent file succeeds).
  await db.dataSource.query(`UPDATE runs SET recording_url = 'recorded' WHERE id = $1`, [runId]);
  return {
    apiKeyId,
    telephonyConfigId,
    phoneNumberId,
    workflowId: agent.id,
    runId,
    workflowUuid: agent.workflow_uuid,
    triggerPath: triggerPathOf(agent),
    campaignId,
    doNotCallEntryId: (listed as { id: number }).id,
    credentialUuid: (credential as { uuid: string }).uuid,
    toolUuid: (tool as { tool_uuid: string }).tool_uuid,
    webhookSubscriptionUuid: (subscription as { subscription_uuid: string }).subscription_uuid,
    sourceId: campaign?.source_id ?? '',
    textChatRunId: textChat?.id ?? 0,
    archivedWorkflowId: archived.id,
    documentUuid: (document as { document_uuid: string }).document_uuid,
  };
}

let db: TestDatabase;
let temporal: TestTemporal;
let app: TestServer;
let orgA: SignedUp;
let orgB: SignedUp;
let idsOfA: OwnedIds;
/** API keys of A and B, for the routes that accept only keys. */
const apiKeys = new Map<SignedUp, string>();

beforeAll(async () => {
  db = await createTestDatabase();
  temporal = await connectTestTemporal();
  app = buildTestApp({ dataSource: db.dataSource, temporal: temporal.client }).app.callback();
  orgA = await signUp(app);
  orgB = await signUp(app);
  idsOfA = await createOwnedResources(app, orgA);
  for (const org of [orgA, orgB]) apiKeys.set(org, (await createApiKey(app, org.token, 'caller')).api_key);
});

afterAll(async () => {
  await temporal.close();
  await db.drop();
});

const call = (route: OrgScopedRoute, caller: SignedUp) => {
  const req = route.apiKeyOnly
    ? request(app)
        [route.method](route.path(idsOfA))
        .set('X-API-Key', apiKeys.get(caller) ?? '')
    : request(app)[route.method](route.path(idsOfA)).auth(caller.token, { type: 'bearer' });
  return route.body ? req.send(route.body) : req;
};

describe("organization B on organization A's resources", () => {
  it.each(orgScopedRoutes.map((route) => [route.method.toUpperCase(), route]))(
    '%s answers 404, as for a missing id',
    async (_method, route) => {
      const res = await call(route, orgB);
      expect({ path: route.path(idsOfA), status: res.status }).toEqual({ path: route.path(idsOfA), status: 404 });
    },
  );

  it('with an API key of B, is refused the same way', async () => {
    const { api_key } = await createApiKey(app, orgB.token);
    for (const route of orgScopedRoutes) {
      const res = await request(app)[route.method](route.path(idsOfA)).set('X-API-Key', api_key).send(route.body);
      expect({ path: route.path(idsOfA), status: res.status }).toEqual({ path: route.path(idsOfA), status: 404 });
    }
  });

  it("does not list A's API keys", async () => {
    const res = await request(app)
      .get('/api/v1/user/api-keys?include_archived=true')
      .auth(orgB.token, { type: 'bearer' });
    expect(res.status).toBe(200);
    expect((res.body as { id: number }[]).map((key) => key.id)).not.toContain(idsOfA.apiKeyId);
  });

  // Run last, as it may change A's resources: it shows the 404s above are about ownership, not the ids.
  it('answers A itself on the same ids', async () => {
    for (const route of orgScopedRoutes) {
      const res = await call(route, orgA);
      expect({ path: route.path(idsOfA), status: res.status }).toEqual({
        path: route.path(idsOfA),
        status: route.ownerStatus ?? 200,
      });
    }
  });
});

describe('the table', () => {
  it('covers every authenticated route that takes an id in its path', () => {
    const { deps } = buildTestApp({ dataSource: db.dataSource, temporal: temporal.client });
    const routesWithIds = createRoutes(deps, createAuthServices(deps)).filter(
      ({ spec }) =>
        spec.security.length > 0 &&
        spec.path.includes('{') &&
        !notIdScoped.includes(`${spec.method.toUpperCase()} ${spec.path}`),
    );
    for (const { spec } of routesWithIds) {
      const pattern = new RegExp(`^/api/v1${spec.path.replace(/\{\w+\}/g, '[^/]+')}$`);
      const covered = orgScopedRoutes.some((row) => row.method === spec.method && pattern.test(row.path(idsOfA)));
      expect({ route: `${spec.method.toUpperCase()} ${spec.path}`, covered }).toEqual({
        route: `${spec.method.toUpperCase()} ${spec.path}`,
        covered: true,
      });
    }
  });
});

describe("organization B's lists", () => {
  it("leave out A's agents and runs", async () => {
    const agents = await request(app).get('/api/v1/workflow/fetch').auth(orgB.token, { type: 'bearer' });
    expect((agents.body as { id: number }[]).map((agent) => agent.id)).not.toContain(idsOfA.workflowId);
    const usage = await request(app).get('/api/v1/organizations/usage/runs').auth(orgB.token, { type: 'bearer' });
    expect(usage.body).toMatchObject({ runs: [], total_count: 0 });
  });
});
