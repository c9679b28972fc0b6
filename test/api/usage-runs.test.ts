import request from 'supertest';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { createAgent, insertRun, type CreatedAgent } from '../helpers/agents';
import { useTestServices } from '../helpers/services';

const services = useTestServices();

let app: TestServer;
let owner: SignedUp;
let agent: CreatedAgent;
const ids: Record<string, number> = {};

const T0 = Date.parse('2026-06-01T00:00:00Z');
const at = (hours: number) => new Date(T0 + hours * 3_600_000).toISOString();

beforeAll(async () => {
  app = services.server({ PRICE_PER_MINUTE_USD: '0.02', PRICE_PER_1K_TOKENS_USD: '0.003' });
  owner = await signUp(app);
  agent = await createAgent(app, owner.token, undefined, 'Usage agent');
  const base = {
    workflowId: agent.id,
    definitionId: agent.current_definition_id,
    organizationId: owner.user.organization_id,
  };
  ids.early = await insertRun(services.db.dataSource, {
    ...base,
    createdAt: at(0),
    durationSeconds: 60,
    tokens: 1000,
    calledNumber: '+14155550100',
    callerNumber: '+12025550000',
    disposition: 'user_hangup',
  });
  ids.middle = await insertRun(services.db.dataSource, {
    ...base,
    createdAt: at(1),
    durationSeconds: 30,
    tokens: 500,
    calledNumber: '+14155550200',
    callerNumber: '+12025550000',
    disposition: 'busy',
    callType: 'inbound',
  });
  ids.late = await insertRun(services.db.dataSource, {
    ...base,
    createdAt: at(2),
    durationSeconds: 90,
    tokens: 0,
    calledNumber: '+4930123456',
    callerNumber: '+12025550099',
    disposition: 'XFER',
  });
  // Another organization's run never shows.
  const stranger = await signUp(app);
  const theirs = await createAgent(app, stranger.token);
  await insertRun(services.db.dataSource, {
    workflowId: theirs.id,
    definitionId: theirs.current_definition_id,
    organizationId: stranger.user.organization_id,
    createdAt: at(1),
    durationSeconds: 999,
  });
});

const usage = (query: Record<string, string | number> = {}) =>
  request(app).get('/api/v1/organizations/usage/runs').query(query).auth(owner.token, { type: 'bearer' });
const runIds = (res: request.Response) => (res.body.runs as { id: number }[]).map((run) => run.id);

describe('GET /api/v1/organizations/usage/runs', () => {
  it('answers the spec fields, newest first, with charge_usd from the configured prices', async () => {
    const res = await usage();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      total_dograh_tokens: 1500,
      total_duration_seconds: 180,
      total_tool_calls: 0,
      total_count: 3,
      page: 1,
      limit: 50,
      total_pages: 1,
    });
    expect(runIds(res)).toEqual([ids.late, ids.middle, ids.early]);
    expect(res.body.runs[1]).toEqual({
      id: ids.middle,
      workflow_id: agent.id,
      workflow_name: 'Usage agent',
      name: 'run',
      created_at: at(1),
      platform_token_usage: 500,
      call_duration_seconds: 30,
      recording_url: null,
      transcript_url: null,
      phone_number: '+12025550000',
      caller_number: '+12025550000',
      called_number: '+14155550200',
      call_type: 'inbound',
      mode: 'simulator',
      disposition: 'busy',
      initial_context: { caller_number: '+12025550000', called_number: '+14155550200' },
      gathered_context: { mapped_call_disposition: 'busy' },
      // 0.5 min × 0.02 + 0.5 k tokens × 0.003
      charge_usd: 0.0115,
      tool_calls: 0,
    });
  });

  it('treats start_date and end_date as inclusive bounds', async () => {
    expect(runIds(await usage({ start_date: at(1), end_date: at(2) }))).toEqual([ids.late, ids.middle]);
    expect(runIds(await usage({ start_date: at(1), end_date: at(1) }))).toEqual([ids.middle]);
    expect(runIds(await usage({ end_date: at(0) }))).toEqual([ids.early]);
  });

  it('totals every matching run, not just the page', async () => {
    const res = await usage({ limit: 1, page: 2 });
    expect(runIds(res)).toEqual([ids.middle]);
    expect(res.body).toMatchObject({
      total_count: 3,
      total_pages: 3,
      total_dograh_tokens: 1500,
      total_duration_seconds: 180,
    });
  });

  it.each([
    ['runId', () => ({ attribute: 'runId', type: 'number', value: { value: ids.late } }), ['late']],
    [
      'workflowId',
      () => ({ attribute: 'workflowId', type: 'number', value: { value: agent.id } }),
      ['late', 'middle', 'early'],
    ],
    [
      'callerNumber',
      () => ({ attribute: 'callerNumber', type: 'text', value: { value: '5550000' } }),
      ['middle', 'early'],
    ],
    ['calledNumber', () => ({ attribute: 'calledNumber', type: 'text', value: { value: '4930' } }), ['late']],
    [
      'dispositionCode',
      () => ({ attribute: 'dispositionCode', type: 'multiSelect', value: { codes: ['busy', 'user_hangup'] } }),
      ['middle', 'early'],
    ],
    [
      'duration',
      () => ({ attribute: 'duration', type: 'numberRange', value: { min: 30, max: 60 } }),
      ['middle', 'early'],
    ],
  ])('filters by %s', async (_name, filter, expected) => {
    const res = await usage({ filters: JSON.stringify([filter()]) });
    expect(res.status).toBe(200);
    expect(runIds(res)).toEqual(expected.map((label) => ids[label]));
  });

  it('ignores attributes outside its seven, including dateRange and status', async () => {
    const filters = [
      { attribute: 'dateRange', type: 'dateRange', value: { from: at(2) } },
      { attribute: 'status', type: 'radio', value: { status: 'in_progress' } },
      { attribute: 'calledNumber', type: 'multiSelect', value: { codes: ['x'] } },
    ];
    expect(runIds(await usage({ filters: JSON.stringify(filters) }))).toHaveLength(3);
  });

  it('refuses a dateRange or status it does not apply when its value is malformed, as the document says', async () => {
    const lateTo = await usage({
      filters: JSON.stringify([{ attribute: 'dateRange', type: 'dateRange', value: { from: at(2), to: 'tomorrow' } }]),
    });
    expect(lateTo.status).toBe(422);
    expect(lateTo.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'filters', 0, 'value', 'to'] })]);
    const numericFrom = await usage({
      filters: JSON.stringify([
        { attribute: 'campaignId', type: 'number', value: { value: 1 } },
        { attribute: 'dateRange', type: 'dateRange', value: { from: 20260301 } },
      ]),
    });
    expect(numericFrom.status).toBe(422);
    expect(numericFrom.body.detail).toEqual([
      expect.objectContaining({ loc: ['query', 'filters', 1, 'value', 'from'] }),
    ]);
    const status = await usage({
      filters: JSON.stringify([{ attribute: 'status', type: 'radio', value: { status: 'done' } }]),
    });
    expect(status.status).toBe(422);
  });

  it('answers 400 "Invalid filters format" for malformed filters, 422 for bad dates or paging', async () => {
    const bad = await usage({ filters: '[{' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ detail: 'Invalid filters format' });
    expect((await usage({ start_date: 'yesterday' })).status).toBe(422);
    expect((await usage({ limit: 0 })).status).toBe(422);
    expect((await usage({ limit: 101 })).status).toBe(422);
  });
});
