import request from 'supertest';
import { SqlWhere } from '../../domain/runs/sql-where';
import { applyFilters, filterSet } from '../../domain/runs/run-filters';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { createAgent, insertCampaign, type CreatedAgent } from '../helpers/agents';
import { useTestServices } from '../helpers/services';

const services = useTestServices();
const RUNS = 10_000;

let app: TestServer;
let owner: SignedUp;
let agents: CreatedAgent[];
let campaignId: number;

/**
 * 10,000 runs in one INSERT ... SELECT generate_series: two agents, every fifth run in a campaign,
 * runs 47 minutes apart from 2026-01-01, numbers and dispositions spread deterministically.
 * The columns the filters read are filled from the JSON by the table's trigger.
 */
beforeAll(async () => {
  app = services.server();
  owner = await signUp(app);
  agents = [await createAgent(app, owner.token), await createAgent(app, owner.token)];
  campaignId = await insertCampaign(services.db.dataSource, owner.user.organization_id, agents[0]!.id);
  await services.db.dataSource.query(
    `INSERT INTO runs (organization_id, workflow_id, definition_id, name, mode, call_type, is_completed, campaign_id,
                       call_duration_seconds, platform_token_usage, created_at, initial_context, gathered_context)
     SELECT $1, CASE WHEN g % 2 = 0 THEN $2::int ELSE $4::int END, CASE WHEN g % 2 = 0 THEN $3::int ELSE $5::int END,
            'run-' || g, 'simulator', CASE WHEN g % 7 = 0 THEN 'inbound' ELSE 'outbound' END, true,
            CASE WHEN g % 5 = 0 THEN $6::int END, (g * 37) % 601, (g * 13) % 5000,
            timestamptz '2026-01-01T00:00:00Z' + g * interval '47 minutes',
            jsonb_build_object('caller_number', '+1202555' || lpad(((g * 7) % 10000)::text, 4, '0'),
                               'called_number', '+1415' || lpad(((g * 7919) % 10000000)::text, 7, '0')),
            jsonb_build_object('mapped_call_disposition',
                               (ARRAY['user_hangup', 'busy', 'no-answer', 'XFER', 'voicemail'])[1 + g % 5])
       FROM generate_series(1, ${RUNS}) AS g`,
    [
      owner.user.organization_id,
      agents[0]!.id,
      agents[0]!.current_definition_id,
      agents[1]!.id,
      agents[1]!.current_definition_id,
      campaignId,
    ],
  );
  await services.db.dataSource.query('ANALYZE runs');
});

interface Expected {
  total: number;
  tokens: number;
  seconds: number;
  first: number[];
}

/** The same selection written independently, over the JSON fields the spec defines the filters by. */
async function expected(condition: string, params: unknown[]): Promise<Expected> {
  const where = `organization_id = $1 AND ${condition}`;
  const all = [owner.user.organization_id, ...params];
  const [totals] = await services.db.dataSource.query<{ total: number; tokens: number; seconds: number }[]>(
    `SELECT count(*)::int AS total, coalesce(sum(platform_token_usage), 0)::float8 AS tokens,
            coalesce(sum(call_duration_seconds), 0)::float8 AS seconds FROM runs WHERE ${where}`,
    all,
  );
  const first = await services.db.dataSource.query<{ id: number }[]>(
    `SELECT id FROM runs WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT 50`,
    all,
  );
  return { total: totals!.total, tokens: totals!.tokens, seconds: totals!.seconds, first: first.map((row) => row.id) };
}

const cases: [string, () => Record<string, string>, string, () => unknown[]][] = [
  ['no filter', () => ({}), 'TRUE', () => []],
  [
    'a date range (inclusive, on exact run times)',
    () => ({ start_date: '2026-01-01T00:47:00Z', end_date: '2026-01-08T05:54:00Z' }),
    `created_at BETWEEN '2026-01-01T00:47:00Z' AND '2026-01-08T05:54:00Z'`,
    () => [],
  ],
  [
    'calledNumber and a date range',
    () => ({
      start_date: '2026-02-01T00:00:00Z',
      end_date: '2026-06-30T23:59:59Z',
      filters: JSON.stringify([{ attribute: 'calledNumber', type: 'text', value: { value: '41500' } }]),
    }),
    `created_at BETWEEN '2026-02-01T00:00:00Z' AND '2026-06-30T23:59:59Z' AND strpos(initial_context->>'called_number', '41500') > 0`,
    () => [],
  ],
  [
    'callerNumber',
    () => ({ filters: JSON.stringify([{ attribute: 'callerNumber', type: 'text', value: { value: '5550042' } }]) }),
    `strpos(initial_context->>'caller_number', '5550042') > 0`,
    () => [],
  ],
  [
    'dispositionCode',
    () => ({
      filters: JSON.stringify([
        { attribute: 'dispositionCode', type: 'multiSelect', value: { codes: ['busy', 'XFER'] } },
      ]),
    }),
    `gathered_context->>'mapped_call_disposition' IN ('busy', 'XFER')`,
    () => [],
  ],
  [
    'duration (inclusive)',
    () => ({
      filters: JSON.stringify([{ attribute: 'duration', type: 'numberRange', value: { min: 100, max: 200 } }]),
    }),
    'call_duration_seconds BETWEEN 100 AND 200',
    () => [],
  ],
  [
    'workflowId',
    () => ({ filters: JSON.stringify([{ attribute: 'workflowId', type: 'number', value: { value: agents[1]!.id } }]) }),
    'workflow_id = $2',
    () => [agents[1]!.id],
  ],
  [
    'campaignId',
    () => ({ filters: JSON.stringify([{ attribute: 'campaignId', type: 'number', value: { value: campaignId } }]) }),
    'campaign_id = $2',
    () => [campaignId],
  ],
  [
    'all of them at once, with an unknown one',
    () => ({
      start_date: '2026-01-15T00:00:00Z',
      filters: JSON.stringify([
        { attribute: 'workflowId', type: 'number', value: { value: agents[0]!.id } },
        { attribute: 'dispositionCode', type: 'multiSelect', value: { codes: ['no-answer', 'voicemail', 'busy'] } },
        { attribute: 'duration', type: 'numberRange', value: { min: 10 } },
        { attribute: 'callerNumber', type: 'text', value: { value: '+1202' } },
        { attribute: 'sentiment', type: 'text', value: { value: 'happy' } },
      ]),
    }),
    `created_at >= '2026-01-15T00:00:00Z' AND workflow_id = $2 AND call_duration_seconds >= 10
     AND gathered_context->>'mapped_call_disposition' IN ('no-answer', 'voicemail', 'busy')
     AND strpos(initial_context->>'caller_number', '+1202') > 0`,
    () => [agents[0]!.id],
  ],
];

describe(`usage over ${RUNS.toLocaleString('en')} runs`, () => {
  it.each(cases)('matches an independent query: %s', async (_name, query, condition, params) => {
    const want = await expected(condition, params());
    const res = await request(app)
      .get('/api/v1/organizations/usage/runs')
      .query(query())
      .auth(owner.token, { type: 'bearer' });
    expect(res.status).toBe(200);
    expect({
      total: res.body.total_count,
      tokens: res.body.total_dograh_tokens,
      seconds: res.body.total_duration_seconds,
      first: (res.body.runs as { id: number }[]).map((run) => run.id),
    }).toEqual(want);
    expect(want.total).toBeGreaterThan(0);
  });

  it("agrees with the agent's run list on the same filters", async () => {
    const filters = JSON.stringify([{ attribute: 'duration', type: 'numberRange', value: { max: 50 } }]);
    const res = await request(app)
      .get(`/api/v1/workflow/${agents[1]!.id}/runs`)
      .query({ filters, limit: 100 })
      .auth(owner.token, { type: 'bearer' });
    const want = await expected('workflow_id = $2 AND call_duration_seconds <= 50', [agents[1]!.id]);
    expect(res.body.total_count).toBe(want.total);
    expect((res.body.runs as { id: number }[]).slice(0, 50).map((run) => run.id)).toEqual(want.first);
  });
});

describe('indexes behind the filters (EXPLAIN)', () => {
  const usageFilters = filterSet([
    'runId',
    'workflowId',
    'campaignId',
    'callerNumber',
    'calledNumber',
    'dispositionCode',
    'duration',
  ]);

  /**
   * The plan of one filter's condition with sequential scans priced out. At this size the planner
   * may rightly prefer the organization index for the whole query (bench/usage-runs.ts shows the plans
   * at 1,000,000 runs); what is checked here is that each condition can be answered by an index.
   */
  async function plan(filter: object): Promise<string[]> {
    const where = new SqlWhere();
    applyFilters(JSON.stringify([filter]), usageFilters, where, 'bad');
    return services.db.dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      const rows = await manager.query<{ 'QUERY PLAN': string }[]>(
        `EXPLAIN SELECT count(*) FROM runs r WHERE ${where.sql}`,
        where.params,
      );
      return rows.map((row) => row['QUERY PLAN']);
    });
  }

  it.each([
    [
      { attribute: 'calledNumber', type: 'text', value: { value: '41500' } },
      'called_number',
      'runs_called_number_trgm_idx',
    ],
    [
      { attribute: 'callerNumber', type: 'text', value: { value: '5550042' } },
      'caller_number',
      'runs_caller_number_trgm_idx',
    ],
    [
      { attribute: 'dispositionCode', type: 'multiSelect', value: { codes: ['busy'] } },
      'disposition',
      '_disposition_idx',
    ],
    [{ attribute: 'duration', type: 'numberRange', value: { min: 590 } }, 'call_duration_seconds', '_duration_idx'],
    [{ attribute: 'workflowId', type: 'number', value: { value: 1 } }, 'workflow_id', 'runs_workflow_'],
    [{ attribute: 'campaignId', type: 'number', value: { value: 1 } }, 'campaign_id', 'runs_campaign_idx'],
    [{ attribute: 'runId', type: 'number', value: { value: 1 } }, 'id', 'runs_pkey'],
  ])('%j is an index condition (%s)', async (filter, column, index) => {
    const lines = await plan(filter);
    expect(lines.join('\n')).toContain(index);
    const mentions = lines.filter((line) => new RegExp(`\\b${column} (=|>=|~~)`).test(line));
    expect(mentions.length).toBeGreaterThan(0);
    expect(mentions.every((line) => /(Index|Recheck) Cond/.test(line))).toBe(true);
  });

  it('a date range page uses (organization_id, created_at)', async () => {
    const rows = await services.db.dataSource.query<{ 'QUERY PLAN': string }[]>(
      `EXPLAIN SELECT id FROM runs r WHERE r.organization_id = $1 AND r.created_at >= $2 AND r.created_at <= $3
        ORDER BY r.created_at DESC, r.id DESC LIMIT 50`,
      [owner.user.organization_id, '2026-03-01T00:00:00Z', '2026-03-02T00:00:00Z'],
    );
    expect(rows.map((row) => row['QUERY PLAN']).join('\n')).toContain('runs_organization_created_idx');
  });
});
