import request from 'supertest';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { createAgent, insertCampaign, insertRun, type CreatedAgent, type RunRow } from '../helpers/agents';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

let app: TestServer;
let owner: SignedUp;
let agent: CreatedAgent;
let campaignId: number;
/** Run ids by label, in insertion (= creation time) order. */
const ids: Record<string, number> = {};

const T0 = Date.parse('2026-05-01T10:00:00Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

beforeAll(async () => {
  app = services.server({ PRICE_PER_MINUTE_USD: '0.1', PRICE_PER_1K_TOKENS_USD: '0.5' });
  owner = await signUp(app);
  agent = await createAgent(app, owner.token);
  const other = await createAgent(app, owner.token);
  campaignId = await insertCampaign(services.db.dataSource, owner.user.organization_id, agent.id);
  const base = {
    workflowId: agent.id,
    definitionId: agent.current_definition_id,
    organizationId: owner.user.organization_id,
  };
  const runs: [string, Partial<RunRow>][] = [
    [
      'a',
      {
        createdAt: at(0),
        durationSeconds: 30,
        tokens: 1000,
        disposition: 'user_hangup',
        calledNumber: '+14155550100',
        callerNumber: '+12025550000',
      },
    ],
    [
      'b',
      {
        createdAt: at(10),
        durationSeconds: 60,
        tokens: 2000,
        disposition: 'busy',
        calledNumber: '+14155550199',
        callerNumber: '+12025550000',
        isCompleted: false,
      },
    ],
    [
      'c',
      {
        createdAt: at(20),
        durationSeconds: 90,
        disposition: 'XFER',
        calledNumber: '+4930123456%',
        callerNumber: '+12025550001',
        campaignId: 0,
      },
    ],
    [
      'd',
      {
        createdAt: at(30),
        durationSeconds: 120,
        disposition: 'user_hangup',
        calledNumber: '+4930999999',
        callerNumber: '+12025550001',
      },
    ],
  ];
  for (const [label, run] of runs) {
    ids[label] = await insertRun(services.db.dataSource, {
      ...base,
      ...run,
      campaignId: run.campaignId === 0 ? campaignId : null,
    });
  }
  // Another agent's run never shows in this agent's list.
  await insertRun(services.db.dataSource, {
    ...base,
    workflowId: other.id,
    definitionId: other.current_definition_id,
    createdAt: at(5),
  });
});

const list = (query: Record<string, string | number> = {}) =>
  request(app).get(`/api/v1/workflow/${agent.id}/runs`).query(query).auth(owner.token, { type: 'bearer' });
const filtered = (...filters: unknown[]) => list({ filters: JSON.stringify(filters) });
const runIds = (res: request.Response) => (res.body.runs as { id: number }[]).map((run) => run.id);
const labels = (...names: string[]) => names.map((name) => ids[name]);

describe('GET /api/v1/workflow/{workflow_id}/runs', () => {
  it('pages the runs newest first with the spec fields', async () => {
    const res = await list({ limit: 3 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total_count: 4, page: 1, limit: 3, total_pages: 2, applied_filters: null });
    expect(runIds(res)).toEqual(labels('d', 'c', 'b'));
    expect(res.body.runs[2]).toEqual({
      id: ids.b,
      workflow_id: agent.id,
      name: 'run',
      mode: 'simulator',
      created_at: at(10),
      is_completed: false,
      transcript_url: null,
      recording_url: null,
      cost_info: { platform_token_usage: 2000, call_duration_seconds: 60, charge_usd: 1.1 },
      definition_id: agent.current_definition_id,
      initial_context: { called_number: '+14155550199', caller_number: '+12025550000' },
      gathered_context: { mapped_call_disposition: 'busy' },
      logs: {},
      annotations: {},
    });
    expect(runIds(await list({ limit: 3, page: 2 }))).toEqual(labels('a'));
  });

  it('sorts by duration or creation time, either way', async () => {
    expect(runIds(await list({ sort_by: 'duration', sort_order: 'asc' }))).toEqual(labels('a', 'b', 'c', 'd'));
    expect(runIds(await list({ sort_by: 'duration' }))).toEqual(labels('d', 'c', 'b', 'a'));
    expect(runIds(await list({ sort_by: 'created_at', sort_order: 'asc' }))).toEqual(labels('a', 'b', 'c', 'd'));
  });

  it.each([
    [
      'dateRange, both bounds inclusive',
      { attribute: 'dateRange', type: 'dateRange', value: { from: at(10), to: at(20) } },
      ['c', 'b'],
    ],
    ['dateRange from only', { attribute: 'dateRange', type: 'dateRange', value: { from: at(20) } }, ['d', 'c']],
    [
      'dispositionCode',
      { attribute: 'dispositionCode', type: 'multiSelect', value: { codes: ['busy', 'XFER'] } },
      ['c', 'b'],
    ],
    [
      'duration, bounds inclusive',
      { attribute: 'duration', type: 'numberRange', value: { min: 60, max: 90 } },
      ['c', 'b'],
    ],
    [
      'duration with fractional bounds',
      { attribute: 'duration', type: 'numberRange', value: { min: 59.5, max: 90.5 } },
      ['c', 'b'],
    ],
    ['status completed', { attribute: 'status', type: 'radio', value: { status: 'completed' } }, ['d', 'c', 'a']],
    ['status in_progress', { attribute: 'status', type: 'radio', value: { status: 'in_progress' } }, ['b']],
    ['callerNumber substring', { attribute: 'callerNumber', type: 'text', value: { value: '5550001' } }, ['d', 'c']],
    ['calledNumber substring', { attribute: 'calledNumber', type: 'text', value: { value: '555501' } }, ['b', 'a']],
    ['calledNumber with a literal %', { attribute: 'calledNumber', type: 'text', value: { value: '456%' } }, ['c']],
  ])('filters by %s', async (_name, filter, expected) => {
    const res = await filtered(filter);
    expect(res.status).toBe(200);
    expect(runIds(res)).toEqual(labels(...expected));
    expect(res.body.total_count).toBe(expected.length);
    expect(res.body.applied_filters).toEqual([filter]);
  });

  it('filters by runId and campaignId', async () => {
    expect(runIds(await filtered({ attribute: 'runId', type: 'number', value: { value: ids.b } }))).toEqual(
      labels('b'),
    );
    expect(runIds(await filtered({ attribute: 'campaignId', type: 'number', value: { value: campaignId } }))).toEqual(
      labels('c'),
    );
  });

  it('combines filters and ignores unknown attributes and mismatched types', async () => {
    const applied = [
      { attribute: 'dispositionCode', type: 'multiSelect', value: { codes: ['user_hangup'] } },
      { attribute: 'duration', type: 'numberRange', value: { min: 100 } },
    ];
    const res = await filtered(
      ...applied,
      { attribute: 'mood', type: 'text', value: { value: 'x' } },
      { attribute: 'duration', type: 'text', value: { value: 'x' } },
      'not an object',
    );
    expect(runIds(res)).toEqual(labels('d'));
    expect(res.body.applied_filters).toEqual(applied);
  });

  it('reads a dateRange bound with any offset as its UTC instant, and refuses one outside the years 0001 to 9999', async () => {
    // +22:56 is valid ISO 8601 but beyond what PostgreSQL takes (15:59); the bound is the same instant.
    const from = new Date(Date.parse(at(10)) + (22 * 60 + 56) * 60_000).toISOString().replace('.000Z', '+22:56');
    const res = await filtered({ attribute: 'dateRange', type: 'dateRange', value: { from, to: at(20) } });
    expect(res.status).toBe(200);
    expect(runIds(res)).toEqual(labels('c', 'b'));
    expect(res.body.applied_filters).toEqual([
      { attribute: 'dateRange', type: 'dateRange', value: { from: at(10), to: at(20) } },
    ]);
    for (const bound of ['0001-01-01T00:00:00+05:00', '9999-12-31T23:00:00-05:00', '0000-06-01T00:00:00Z']) {
      const refused = await filtered({ attribute: 'dateRange', type: 'dateRange', value: { from: bound } });
      expect(refused.status).toBe(422);
      expect(refused.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'filters', 0, 'value', 'from'] })]);
    }
  });

  it('answers 400 for filters that are not a JSON array', async () => {
    for (const filters of ['{not json', '{"attribute":"runId"}']) {
      const res = await list({ filters });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Invalid filters format' });
    }
  });

  it('answers 422 for a known filter with a malformed value, and for out-of-range paging', async () => {
    const res = await filtered({ attribute: 'duration', type: 'numberRange', value: { min: 'long' } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'filters', 0, 'value', 'min'] })]);
    expect((await list({ limit: 101 })).status).toBe(422);
    expect((await list({ page: 0 })).status).toBe(422);
    expect((await list({ sort_by: 'name' })).status).toBe(422);
  });
});

describe('GET /api/v1/workflow/{workflow_id}/runs/{run_id}', () => {
  it('answers the run with its detail fields', async () => {
    const res = await request(app)
      .get(`/api/v1/workflow/${agent.id}/runs/${ids.c}`)
      .auth(owner.token, { type: 'bearer' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: ids.c,
      workflow_id: agent.id,
      definition_id: agent.current_definition_id,
      call_type: 'outbound',
      state: 'initialized',
      campaign_id: campaignId,
      caller_number: '+12025550001',
      called_number: '+4930123456%',
      disposition: 'XFER',
      usage_info: {},
      cost_info: { call_duration_seconds: 90, platform_token_usage: 0, charge_usd: 0.15 },
    });
  });

  it("answers 404 for a run of another of the organization's agents", async () => {
    const other = await createAgent(app, owner.token);
    const res = await request(app)
      .get(`/api/v1/workflow/${other.id}/runs/${ids.a}`)
      .auth(owner.token, { type: 'bearer' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Workflow run not found' });
  });
});
