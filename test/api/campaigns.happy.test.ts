import request from 'supertest';
import { insertRun } from '../helpers/agents';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import {
  contactIds,
  createCampaign,
  insertAttempt,
  insertContactSource,
  setCampaignState,
} from '../helpers/campaign-api';
import { useTestServices } from '../helpers/services';
import { TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const server = () => services.server({ SECRETS_KEY: TEST_SECRETS_KEY });

let org: CallingOrganization;
let sourceId: string;

const contacts = [
  { phone_number: '+14155550101', first_name: 'Ada' },
  { phone_number: '+14155550486', first_name: 'Busy' },
  { phone_number: '+14155550600', first_name: 'Voicemail' },
  { phone_number: '+14155550408', first_name: 'Nobody' },
  { phone_number: '+14155550503', first_name: 'Failed' },
];

beforeAll(async () => {
  org = await callingOrganization(server());
  sourceId = await insertContactSource(services.db.dataSource, org.owner.user.organization_id, contacts);
});

const api = () => ({
  get: (path: string) => request(server()).get(`/api/v1${path}`).auth(org.owner.token, { type: 'bearer' }),
  post: (path: string, body?: object) =>
    request(server()).post(`/api/v1${path}`).auth(org.owner.token, { type: 'bearer' }).send(body),
  patch: (path: string, body: object) =>
    request(server()).patch(`/api/v1${path}`).auth(org.owner.token, { type: 'bearer' }).send(body),
});

/** The report of a campaign none of whose calls was analysed. */
const NO_ANALYSIS = {
  analyzed_calls: 0,
  evaluated_calls: 0,
  successful_calls: 0,
  success_rate: null,
  sentiment: { positive: 0, neutral: 0, negative: 0 },
  top_tags: [],
};

const idsOf = (items: unknown) => (items as { id: number }[]).map((item) => item.id);

const minimalBody = () => ({ name: 'Reminders', workflow_id: org.agent.id, source_type: 'csv', source_id: sourceId });

describe('POST /campaign/create', () => {
  it('creates a draft with the decided defaults and the default outbound configuration', async () => {
    const res = await api().post('/campaign/create', minimalBody());
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'Reminders',
      workflow_id: org.agent.id,
      workflow_name: 'Reminder agent',
      state: 'draft',
      source_type: 'csv',
      source_id: sourceId,
      total_rows: 5,
      processed_rows: 0,
      failed_rows: 0,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      started_at: null,
      completed_at: null,
      retry_config: {
        enabled: true,
        max_retries: 2,
        retry_delay_seconds: 120,
        retry_on_busy: true,
        retry_on_no_answer: true,
        retry_on_voicemail: true,
      },
      max_concurrency: 10,
      schedule_config: null,
      circuit_breaker: { enabled: false, failure_threshold: 0.5, window_seconds: 120, min_calls_in_window: 5 },
      executed_count: 0,
      dnc_skipped: 0,
      frequency_capped: 0,
      transferred: 0,
      total_queued_count: 0,
      parent_campaign_id: null,
      redialed_campaign_id: null,
      telephony_configuration_id: org.configuration.id,
      telephony_configuration_name: org.configuration.name,
      fallback_telephony_configuration_id: null,
      fallback_caller_number: null,
      active_telephony_configuration_id: org.configuration.id,
      failed_over_at: null,
      voicemail_action: 'retry_later',
      logs: [],
    });
  });

  it('keeps given settings, filling the rest of each object with defaults', async () => {
    const res = await api().post('/campaign/create', {
      ...minimalBody(),
      telephony_configuration_id: org.configuration.id,
      max_concurrency: 100,
      retry_config: { max_retries: 0, retry_on_voicemail: false },
      circuit_breaker: { enabled: true, failure_threshold: 1 },
      schedule_config: { slots: [{ day_of_week: 0, start_time: '09:00', end_time: '17:30' }] },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      max_concurrency: 100,
      retry_config: { enabled: true, max_retries: 0, retry_delay_seconds: 120, retry_on_voicemail: false },
      circuit_breaker: { enabled: true, failure_threshold: 1, window_seconds: 120, min_calls_in_window: 5 },
      schedule_config: {
        enabled: true,
        timezone: 'UTC',
        slots: [{ day_of_week: 0, start_time: '09:00', end_time: '17:30' }],
      },
    });
  });

  it('accepts template variables that a campaign call always carries', async () => {
    const agent = await request(server())
      .post('/api/v1/workflow/create/definition')
      .auth(org.owner.token, { type: 'bearer' })
      .send({
        name: 'Caller id agent',
        workflow_definition: {
          nodes: [
            {
              id: 'start',
              type: 'startCall',
              position: { x: 0, y: 0 },
              data: {
                name: 'Start',
                prompt: 'Hi {{first_name}}, calling {{called_number}} about {{topic | your order}}.',
              },
            },
            { id: 'end', type: 'endCall', position: { x: 0, y: 1 }, data: { name: 'End', prompt: 'Bye.' } },
          ],
          edges: [{ id: 'e', source: 'start', target: 'end', data: { label: 'Done', condition: 'Done' } }],
        },
      });
    expect(agent.status).toBe(201);
    const res = await api().post('/campaign/create', { ...minimalBody(), workflow_id: agent.body.id });
    expect(res.status).toBe(201);
  });
});

/** A draft's `not_dialing`. */
const notStarted = (id: number) => ({
  reasons: [
    {
      reason: 'not_started',
      message: `Not started: POST /campaign/${id}/start starts it`,
      until: null,
      count: null,
      details: {},
    },
  ],
});

describe('GET /campaign and /campaign/{id}', () => {
  it('answers one campaign exactly as created, and why it is not dialing (not started)', async () => {
    const created = await createCampaign(server(), org.owner.token, minimalBody());
    const res = await api().get(`/campaign/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...created, analysis: NO_ANALYSIS, not_dialing: notStarted(created.id) });
  });

  it('pages newest first and filters by state', async () => {
    const first = await createCampaign(server(), org.owner.token, { ...minimalBody(), name: 'Page one' });
    const second = await createCampaign(server(), org.owner.token, { ...minimalBody(), name: 'Page two' });
    await setCampaignState(services.db.dataSource, first.id, 'completed');

    const all = await api().get('/campaign?limit=1');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ page: 1, limit: 1 });
    expect(all.body.total_pages).toBe(all.body.total_count);
    expect(idsOf(all.body.campaigns)).toEqual([second.id]);

    const secondPage = await api().get('/campaign?limit=1&page=2');
    expect(idsOf(secondPage.body.campaigns)).toEqual([first.id]);

    const completed = await api().get('/campaign?state=completed');
    expect(completed.body).toMatchObject({ total_count: 1, page: 1, limit: 50, total_pages: 1 });
    expect(completed.body.campaigns[0]).toMatchObject({ id: first.id, state: 'completed', logs: [] });
  });
});

describe('PATCH /campaign/{id} on a draft', () => {
  it('merges retry_config and circuit_breaker, replaces schedule_config, and logs config_updated', async () => {
    const created = await createCampaign(server(), org.owner.token, {
      ...minimalBody(),
      retry_config: { max_retries: 5 },
    });
    const res = await api().patch(`/campaign/${created.id}`, {
      name: 'Renamed',
      max_concurrency: 3,
      retry_config: { retry_delay_seconds: 30 },
      circuit_breaker: { enabled: true },
      schedule_config: {
        timezone: 'Europe/Berlin',
        slots: [{ day_of_week: 5, start_time: '10:00', end_time: '12:00' }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Renamed',
      state: 'draft',
      max_concurrency: 3,
      retry_config: { max_retries: 5, retry_delay_seconds: 30, retry_on_busy: true },
      circuit_breaker: { enabled: true, failure_threshold: 0.5 },
      schedule_config: { enabled: true, timezone: 'Europe/Berlin' },
    });
    expect(res.body.logs).toEqual([
      {
        ts: expect.any(String),
        level: 'info',
        event: 'config_updated',
        message: 'Campaign settings updated',
        details: { fields: ['name', 'max_concurrency', 'retry_config', 'schedule_config', 'circuit_breaker'] },
      },
    ]);
    expect((await api().get(`/campaign/${created.id}`)).body).toEqual({
      ...res.body,
      analysis: NO_ANALYSIS,
      not_dialing: notStarted(created.id),
    });

    const cleared = await api().patch(`/campaign/${created.id}`, { schedule_config: null });
    expect(cleared.body.schedule_config).toBeNull();
  });

  it('changes nothing (and logs nothing) for an empty body', async () => {
    const created = await createCampaign(server(), org.owner.token, minimalBody());
    const res = await api().patch(`/campaign/${created.id}`, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
  });
});

describe('POST /campaign/{id}/cancel on a draft', () => {
  it('cancels it directly (no workflow exists yet) and logs campaign_cancelled', async () => {
    const created = await createCampaign(server(), org.owner.token, minimalBody());
    const res = await api().post(`/campaign/${created.id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ state: 'cancelled', completed_at: expect.any(String) });
    expect(res.body.logs).toMatchObject([{ level: 'info', event: 'campaign_cancelled' }]);
    const start = await api().post(`/campaign/${created.id}/start`);
    expect(start.status).toBe(409);
    expect(start.body).toEqual({ detail: "Campaign must be in 'draft' state to start, current state: cancelled" });
  });
});

describe('GET /campaign/{id}/progress from the stored figures', () => {
  it('is all zeros for a draft', async () => {
    const created = await createCampaign(server(), org.owner.token, minimalBody());
    const res = await api().get(`/campaign/${created.id}/progress`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      campaign_id: created.id,
      state: 'draft',
      total_rows: 5,
      processed_rows: 0,
      failed_rows: 0,
      executed_count: 0,
      total_queued_count: 0,
      in_flight: 0,
      pending_retries: 0,
      dnc_skipped: 0,
      frequency_capped: 0,
      transferred: 0,
      outcomes: {},
      progress_percentage: 0,
      next_open_at: null,
      active_telephony_configuration_id: expect.any(Number),
      started_at: null,
      completed_at: null,
      source: 'database',
    });
  });
});

describe("GET /campaign/{id}: its analysed calls' report", () => {
  it('counts success, sentiment and tags over the analysed runs of this campaign only', async () => {
    const created = await createCampaign(server(), org.owner.token, minimalBody());
    const base = {
      workflowId: org.agent.id,
      definitionId: org.agent.current_definition_id,
      organizationId: org.owner.user.organization_id,
    };
    const analysed = (sentiment: string, successful: boolean | null, tags: string[]) => ({
      tags,
      analysis: {
        fields: {},
        score: successful ? 8 : 4,
        sentiment,
        model: 'offline',
        ...(successful === null
          ? {}
          : { success: { rubric: 'pass_fail', value: successful, successful, reason: 'judged' } }),
      },
    });
    const annotate = async (runId: number, annotations: object): Promise<void> => {
      await services.db.dataSource.query(`UPDATE runs SET annotations = $2 WHERE id = $1`, [
        runId,
        JSON.stringify(annotations),
      ]);
    };
    const results = [
      analysed('positive', true, ['interested', 'callback']),
      analysed('positive', true, ['interested']),
      analysed('negative', false, ['asked_to_stop', 'interested']),
      analysed('neutral', null, ['dead_air']),
      // A node that failed or skipped the call gives no analysis: not counted.
      { tags: [], qa_main: { skipped: true, reason: 'call_too_short' } },
    ];
    for (const annotations of results) {
      await annotate(await insertRun(services.db.dataSource, { ...base, campaignId: created.id }), annotations);
    }
    // Another campaign's and a campaign-less run are not this campaign's.
    const other = await createCampaign(server(), org.owner.token, minimalBody());
    await annotate(
      await insertRun(services.db.dataSource, { ...base, campaignId: other.id }),
      analysed('negative', false, ['interested']),
    );
    await annotate(await insertRun(services.db.dataSource, base), analysed('negative', false, ['interested']));

    const res = await api().get(`/campaign/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body.analysis).toEqual({
      analyzed_calls: 4,
      evaluated_calls: 3,
      successful_calls: 2,
      success_rate: 0.667,
      sentiment: { positive: 2, neutral: 1, negative: 1 },
      top_tags: [
        { tag: 'interested', calls: 3 },
        { tag: 'asked_to_stop', calls: 1 },
        { tag: 'callback', calls: 1 },
        { tag: 'dead_air', calls: 1 },
      ],
    });
    expect((await api().get(`/campaign/${other.id}`)).body.analysis).toMatchObject({
      analyzed_calls: 1,
      success_rate: 0,
    });
  });
});

describe('GET /campaign/{id}/runs', () => {
  it("lists the campaign's runs only, with the agent-runs filters and paging", async () => {
    const created = await createCampaign(server(), org.owner.token, minimalBody());
    const base = {
      workflowId: org.agent.id,
      definitionId: org.agent.current_definition_id,
      organizationId: org.owner.user.organization_id,
    };
    const ids = [];
    for (const called of ['+14155550101', '+14155550486', '+14155550600']) {
      ids.push(await insertRun(services.db.dataSource, { ...base, campaignId: created.id, calledNumber: called }));
    }
    await insertRun(services.db.dataSource, { ...base, calledNumber: '+14155550101' });

    const all = await api().get(`/campaign/${created.id}/runs?limit=2`);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total_count: 3, page: 1, limit: 2, total_pages: 2, applied_filters: null });
    expect(idsOf(all.body.runs)).toEqual([ids[2], ids[1]]);

    const filters = JSON.stringify([{ attribute: 'calledNumber', type: 'text', value: { value: '0486' } }]);
    const filtered = await api().get(`/campaign/${created.id}/runs?filters=${encodeURIComponent(filters)}`);
    expect(idsOf(filtered.body.runs)).toEqual([ids[1]]);
    expect(filtered.body.applied_filters).toEqual([
      { attribute: 'calledNumber', type: 'text', value: { value: '0486' } },
    ]);
  });
});

describe('POST /campaign/{id}/redial', () => {
  let parentId: number;

  beforeAll(async () => {
    const parent = await createCampaign(server(), org.owner.token, {
      ...minimalBody(),
      name: 'Spring reminders',
      max_concurrency: 7,
      retry_config: { max_retries: 4 },
    });
    parentId = parent.id;
    const [ada, busy, voicemail, nobody, failed] = await contactIds(services.db.dataSource, sourceId);
    const attempts: [string | undefined, number, string][] = [
      [ada, 1, 'completed'],
      // Busy first, answered on the retry: its last outcome is completed.
      [busy, 1, 'busy'],
      [busy, 2, 'completed'],
      [voicemail, 1, 'voicemail'],
      [nobody, 1, 'busy'],
      [nobody, 2, 'no-answer'],
      [failed, 1, 'failed'],
    ];
    for (const [contactId, attempt, outcome] of attempts) {
      await insertAttempt(services.db.dataSource, {
        campaignId: parentId,
        contactId: contactId ?? '',
        attempt,
        outcome,
      });
    }
    await services.db.dataSource.query(
      `UPDATE campaigns SET state = 'completed', processed_rows = 5, failed_rows = 3, executed_count = 7,
              total_queued_count = 7, started_at = now(), completed_at = now() WHERE id = $1`,
      [parentId],
    );
  });

  it('shows the stored outcomes in the progress of the finished parent', async () => {
    const res = await api().get(`/campaign/${parentId}/progress`);
    expect(res.body).toMatchObject({
      state: 'completed',
      processed_rows: 5,
      failed_rows: 3,
      progress_percentage: 100,
      outcomes: { completed: 2, voicemail: 1, 'no-answer': 1, failed: 1 },
      source: 'database',
    });
  });

  it('creates a linked draft over the contacts whose last outcome matches, on a copy of their rows', async () => {
    const res = await api().post(`/campaign/${parentId}/redial`, { retry_on_busy: true, retry_on_voicemail: false });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Spring reminders (Redial)',
      state: 'draft',
      workflow_id: org.agent.id,
      total_rows: 1,
      parent_campaign_id: parentId,
      redialed_campaign_id: null,
      max_concurrency: 7,
      retry_config: { max_retries: 4 },
      telephony_configuration_id: org.configuration.id,
    });
    expect(res.body.source_id).not.toBe(sourceId);
    const copied = await services.db.dataSource.query<{ row_number: number; phone_number: string }[]>(
      'SELECT row_number, phone_number, initial_context FROM campaign_contacts WHERE source_id = $1',
      [res.body.source_id],
    );
    expect(copied).toEqual([
      { row_number: 4, phone_number: '+14155550408', initial_context: { first_name: 'Nobody' } },
    ]);

    const parent = await api().get(`/campaign/${parentId}`);
    expect(parent.body.redialed_campaign_id).toBe(res.body.id);

    const again = await api().post(`/campaign/${parentId}/redial`, {});
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe(`This campaign has already been redialed (campaign ${res.body.id})`);
  });

  it('redials a cancelled campaign too, over the contacts it reached with a matching outcome', async () => {
    const cancelled = await createCampaign(server(), org.owner.token, { ...minimalBody(), name: 'Stopped early' });
    const [, busy] = await contactIds(services.db.dataSource, sourceId);
    await insertAttempt(services.db.dataSource, {
      campaignId: cancelled.id,
      contactId: busy ?? '',
      attempt: 1,
      outcome: 'busy',
    });
    expect((await api().post(`/campaign/${cancelled.id}/cancel`)).body.state).toBe('cancelled');
    const res = await api().post(`/campaign/${cancelled.id}/redial`, { retry_on_busy: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Stopped early (Redial)', total_rows: 1, parent_campaign_id: cancelled.id });
  });

  it('takes every matching outcome by default, a name, and a retry_config merged over the parent', async () => {
    await services.db.dataSource.query('UPDATE campaigns SET redialed_campaign_id = NULL WHERE id = $1', [parentId]);
    const res = await api().post(`/campaign/${parentId}/redial`, {
      name: 'Second chance',
      retry_config: { retry_delay_seconds: 600 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Second chance',
      total_rows: 2,
      retry_config: { max_retries: 4, retry_delay_seconds: 600 },
    });
    const phones = await services.db.dataSource.query<{ phone_number: string }[]>(
      'SELECT phone_number FROM campaign_contacts WHERE source_id = $1 ORDER BY row_number',
      [res.body.source_id],
    );
    expect(phones.map((row) => row.phone_number)).toEqual(['+14155550600', '+14155550408']);
  });
});
