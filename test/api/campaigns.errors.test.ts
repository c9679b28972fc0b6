import { Client, Connection } from '@temporalio/client';
import request from 'supertest';
import { signUp, type SignedUp } from '../helpers/accounts';
import { createAgent, sampleDefinition } from '../helpers/agents';
import { buildTestApp } from '../helpers/app';
import { callingOrganization, type CallingOrganization } from '../helpers/calls';
import { createCampaign, insertContactSource, setCampaignState } from '../helpers/campaign-api';
import { useTestServices } from '../helpers/services';
import { createTelephonyConfig, TEST_SECRETS_KEY } from '../helpers/telephony';

const services = useTestServices();
const env = { SECRETS_KEY: TEST_SECRETS_KEY };
const server = () => services.server(env);

let org: CallingOrganization;
let other: CallingOrganization;
let sourceId: string;

beforeAll(async () => {
  org = await callingOrganization(server());
  other = await callingOrganization(server());
  sourceId = await insertContactSource(services.db.dataSource, org.owner.user.organization_id, [
    { phone_number: '+14155550101', first_name: 'Ada' },
  ]);
});

const as = (caller: SignedUp, app = server()) => ({
  get: (path: string) => request(app).get(`/api/v1${path}`).auth(caller.token, { type: 'bearer' }),
  post: (path: string, body?: object) =>
    request(app).post(`/api/v1${path}`).auth(caller.token, { type: 'bearer' }).send(body),
  patch: (path: string, body: object) =>
    request(app).patch(`/api/v1${path}`).auth(caller.token, { type: 'bearer' }).send(body),
});
const api = () => as(org.owner);

const validBody = () => ({ name: 'Reminders', workflow_id: org.agent.id, source_type: 'csv', source_id: sourceId });
const draft = () => createCampaign(server(), org.owner.token, validBody());

/** The `loc`s of a 422 answer. */
const locs = (body: { detail: { loc: (string | number)[] }[] }) => body.detail.map((issue) => issue.loc.join('.'));

describe('POST /campaign/create validation (422)', () => {
  it('names every missing required field', async () => {
    const res = await api().post('/campaign/create', {});
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual(['body.name', 'body.workflow_id', 'body.source_type', 'body.source_id']);
    expect(res.body.detail[0]).toMatchObject({ type: 'missing' });
  });

  it.each([
    ['name', { name: '' }, 'body.name'],
    ['name', { name: 'x'.repeat(256) }, 'body.name'],
    ['source_type', { source_type: 'xlsx' }, 'body.source_type'],
    ['max_concurrency', { max_concurrency: 0 }, 'body.max_concurrency'],
    ['max_concurrency', { max_concurrency: 101 }, 'body.max_concurrency'],
    ['max_retries', { retry_config: { max_retries: 11 } }, 'body.retry_config.max_retries'],
    ['max_retries', { retry_config: { max_retries: -1 } }, 'body.retry_config.max_retries'],
    ['retry_delay_seconds', { retry_config: { retry_delay_seconds: 0 } }, 'body.retry_config.retry_delay_seconds'],
    ['retry_delay_seconds', { retry_config: { retry_delay_seconds: 86_401 } }, 'body.retry_config.retry_delay_seconds'],
    ['failure_threshold', { circuit_breaker: { failure_threshold: 0 } }, 'body.circuit_breaker.failure_threshold'],
    ['failure_threshold', { circuit_breaker: { failure_threshold: 1.01 } }, 'body.circuit_breaker.failure_threshold'],
    ['window_seconds', { circuit_breaker: { window_seconds: 9 } }, 'body.circuit_breaker.window_seconds'],
    ['window_seconds', { circuit_breaker: { window_seconds: 3601 } }, 'body.circuit_breaker.window_seconds'],
    [
      'min_calls_in_window',
      { circuit_breaker: { min_calls_in_window: 0 } },
      'body.circuit_breaker.min_calls_in_window',
    ],
    [
      'min_calls_in_window',
      { circuit_breaker: { min_calls_in_window: 1001 } },
      'body.circuit_breaker.min_calls_in_window',
    ],
    ['slots', { schedule_config: { slots: [] } }, 'body.schedule_config.slots'],
    ['slots', { schedule_config: {} }, 'body.schedule_config.slots'],
    [
      'slots',
      { schedule_config: { slots: Array(51).fill({ day_of_week: 0, start_time: '09:00', end_time: '10:00' }) } },
      'body.schedule_config.slots',
    ],
    [
      'day_of_week',
      { schedule_config: { slots: [{ day_of_week: 7, start_time: '09:00', end_time: '10:00' }] } },
      'body.schedule_config.slots.0.day_of_week',
    ],
    [
      'start_time',
      { schedule_config: { slots: [{ day_of_week: 0, start_time: '9:00', end_time: '10:00' }] } },
      'body.schedule_config.slots.0.start_time',
    ],
    [
      'end_time',
      { schedule_config: { slots: [{ day_of_week: 0, start_time: '10:00', end_time: '24:00' }] } },
      'body.schedule_config.slots.0.end_time',
    ],
    [
      'start before end',
      { schedule_config: { slots: [{ day_of_week: 0, start_time: '10:00', end_time: '10:00' }] } },
      'body.schedule_config.slots.0.end_time',
    ],
    [
      'timezone',
      {
        schedule_config: {
          timezone: 'Mars/Olympus_Mons',
          slots: [{ day_of_week: 0, start_time: '09:00', end_time: '10:00' }],
        },
      },
      'body.schedule_config.timezone',
    ],
  ])('refuses a bad %s (case %#)', async (_field, change, loc) => {
    const res = await api().post('/campaign/create', { ...validBody(), ...change });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual([loc]);
  });

  it('refuses time_slots and points to schedule_config.slots, so no schedule is silently dropped', async () => {
    const res = await api().post('/campaign/create', {
      ...validBody(),
      time_slots: [{ day: 'monday', start: '09:00', end: '17:00' }],
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      {
        loc: ['body', 'time_slots'],
        msg: 'time_slots is not accepted: send the calling windows as schedule_config.slots',
        type: 'value_error',
      },
    ]);
  });

  it('says which timezone is wrong', async () => {
    const res = await api().post('/campaign/create', {
      ...validBody(),
      schedule_config: {
        timezone: 'Europe/Atlantis',
        slots: [{ day_of_week: 0, start_time: '09:00', end_time: '10:00' }],
      },
    });
    expect(res.body.detail[0]).toMatchObject({ msg: 'Unknown IANA timezone' });
  });
});

describe('POST /campaign/create references (400)', () => {
  it('answers workflow_not_found for an unknown agent and for another organization’s', async () => {
    for (const workflowId of [999_999_999, other.agent.id]) {
      const res = await api().post('/campaign/create', { ...validBody(), workflow_id: workflowId });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'workflow_not_found' });
    }
  });

  it('answers source_not_found for an unknown source and for another organization’s', async () => {
    const othersSource = await insertContactSource(services.db.dataSource, other.owner.user.organization_id, [
      { phone_number: '+14155550101', first_name: 'Eve' },
    ]);
    for (const id of ['src_missing', othersSource]) {
      const res = await api().post('/campaign/create', { ...validBody(), source_id: id });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'source_not_found' });
    }
  });

  it('answers telephony_configuration_not_found for another organization’s configuration', async () => {
    const res = await api().post('/campaign/create', {
      ...validBody(),
      telephony_configuration_id: other.configuration.id,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'telephony_configuration_not_found' });
  });

  it('names the template variables the contact list lacks', async () => {
    const agent = await createAgent(
      server(),
      org.owner.token,
      sampleDefinition('Hi {{first_name}} {{last_name}}, about {{initial_context.order_id}} at {{current_time}}.'),
    );
    const res = await api().post('/campaign/create', { ...validBody(), workflow_id: agent.id });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe(
      "Workflow uses template variables that are missing from the source data: 'last_name', 'order_id'. " +
        'Add these columns to the CSV or give them a fallback ({{name | default}}).',
    );
  });
});

describe('state rules (409)', () => {
  it('refuses PATCH outside draft and paused', async () => {
    const campaign = await draft();
    for (const state of ['running', 'completed', 'failed', 'cancelled'] as const) {
      await setCampaignState(services.db.dataSource, campaign.id, state);
      const res = await api().patch(`/campaign/${campaign.id}`, { name: 'Renamed' });
      expect({ state, status: res.status, body: res.body }).toEqual({
        state,
        status: 409,
        body: { detail: 'Campaign can only be updated in draft or paused state' },
      });
    }
  });

  it('validates a PATCH body like a create', async () => {
    const campaign = await draft();
    const res = await api().patch(`/campaign/${campaign.id}`, {
      max_concurrency: 101,
      time_slots: [],
      retry_config: { max_retries: 11 },
    });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual(['body.retry_config.max_retries', 'body.max_concurrency', 'body.time_slots']);
  });

  it('names the current state when a transition does not apply', async () => {
    const campaign = await draft();
    const pause = await api().post(`/campaign/${campaign.id}/pause`);
    expect(pause.status).toBe(409);
    expect(pause.body).toEqual({ detail: "Campaign must be in 'running' state to pause, current state: draft" });
    const resume = await api().post(`/campaign/${campaign.id}/resume`);
    expect(resume.body).toEqual({ detail: "Campaign must be in 'paused' state to resume, current state: draft" });

    await setCampaignState(services.db.dataSource, campaign.id, 'completed');
    const cancel = await api().post(`/campaign/${campaign.id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.body).toEqual({
      detail: "Campaign must be in 'draft', 'running' or 'paused' state to cancel, current state: completed",
    });
    await setCampaignState(services.db.dataSource, campaign.id, 'running');
    const start = await api().post(`/campaign/${campaign.id}/start`);
    expect(start.body).toEqual({ detail: "Campaign must be in 'draft' state to start, current state: running" });
  });

  it('answers 409 when the row says running but no campaign workflow exists', async () => {
    const campaign = await draft();
    await setCampaignState(services.db.dataSource, campaign.id, 'running');
    const res = await api().post(`/campaign/${campaign.id}/pause`);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      detail: `Campaign workflow campaign-${campaign.id} is not running, current state: running`,
    });
  });

  it('redials only completed or cancelled campaigns', async () => {
    const campaign = await draft();
    const res = await api().post(`/campaign/${campaign.id}/redial`, {});
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: 'Only completed or cancelled campaigns can be redialed, current state: draft' });
  });
});

describe('start without telephony (400)', () => {
  it('refuses an organization with no outbound configuration', async () => {
    const owner = await signUp(server());
    const agent = await createAgent(server(), owner.token);
    const source = await insertContactSource(services.db.dataSource, owner.user.organization_id, [
      { phone_number: '+14155550101', first_name: 'Ada' },
    ]);
    // A configuration that is not the default outbound one: the campaign has none to dial through.
    await createTelephonyConfig(server(), owner.token);
    const campaign = await createCampaign(server(), owner.token, {
      name: 'No carrier',
      workflow_id: agent.id,
      source_type: 'csv',
      source_id: source,
    });
    expect(campaign.telephony_configuration_id).toBeNull();
    const res = await as(owner).post(`/campaign/${campaign.id}/start`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Telephony provider not configured for this organization' });
    expect((await as(owner).get(`/campaign/${campaign.id}`)).body.state).toBe('draft');
  });
});

describe('redial input', () => {
  it('needs at least one outcome flag (422)', async () => {
    const campaign = await draft();
    const res = await api().post(`/campaign/${campaign.id}/redial`, {
      retry_on_busy: false,
      retry_on_no_answer: false,
      retry_on_voicemail: false,
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: ['body'],
      msg: 'At least one of retry_on_busy, retry_on_no_answer and retry_on_voicemail must be true',
    });
  });

  it('answers 400 when no contact matches, and writes nothing', async () => {
    const campaign = await draft();
    await setCampaignState(services.db.dataSource, campaign.id, 'completed');
    const [{ sources }] = await services.db.dataSource.query('SELECT count(*)::int AS sources FROM campaign_sources');
    const res = await api().post(`/campaign/${campaign.id}/redial`, {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'No contacts match the selected redial criteria' });
    const [after] = await services.db.dataSource.query('SELECT count(*)::int AS sources FROM campaign_sources');
    expect(after.sources).toBe(sources);
  });
});

describe('lists and ids', () => {
  it('answers 404 for an unknown campaign', async () => {
    for (const path of ['/campaign/999999999', '/campaign/999999999/progress', '/campaign/999999999/runs']) {
      const res = await api().get(path);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 404,
        body: { detail: 'Campaign not found' },
      });
    }
  });

  it('validates the list query', async () => {
    const res = await api().get('/campaign?state=syncing&limit=101&page=0');
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual(['query.page', 'query.limit', 'query.state']);
  });

  it('answers 400 for filters that are not a JSON array', async () => {
    const campaign = await draft();
    const res = await api().get(`/campaign/${campaign.id}/runs?filters=nope`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Invalid filters format' });
  });

  it("leaves other organizations' campaigns out of the list", async () => {
    await draft();
    const res = await as(other.owner).get('/campaign');
    expect(res.body).toMatchObject({ campaigns: [], total_count: 0, total_pages: 0 });
  });
});

describe('Temporal unreachable (503)', () => {
  // A port nothing listens on: the lazy connection fails on first use, as in an outage. Without the
  // SDK's default retry interceptor each call fails at once instead of retrying up to the routes' deadline.
  const deadTemporal = () =>
    new Client({
      connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: '1 second', interceptors: [] }),
    });
  const deadApp = () =>
    buildTestApp({ dataSource: services.db.dataSource, temporal: deadTemporal() }, env).app.callback();

  it('answers start, pause, resume, cancel and PATCH of a started campaign with 503, changing nothing', async () => {
    const campaign = await draft();
    const start = await as(org.owner, deadApp()).post(`/campaign/${campaign.id}/start`);
    expect(start.status).toBe(503);
    expect(start.body).toEqual({ detail: 'Temporal is unavailable' });
    expect((await api().get(`/campaign/${campaign.id}`)).body.state).toBe('draft');

    for (const [state, action] of [
      ['running', 'pause'],
      ['paused', 'resume'],
      ['running', 'cancel'],
    ] as const) {
      await setCampaignState(services.db.dataSource, campaign.id, state);
      const res = await as(org.owner, deadApp()).post(`/campaign/${campaign.id}/${action}`);
      expect({ action, status: res.status, body: res.body }).toEqual({
        action,
        status: 503,
        body: { detail: 'Temporal is unavailable' },
      });
    }
    await setCampaignState(services.db.dataSource, campaign.id, 'paused');
    const patch = await as(org.owner, deadApp()).patch(`/campaign/${campaign.id}`, { name: 'Renamed' });
    expect(patch.status).toBe(503);
    expect((await api().get(`/campaign/${campaign.id}`)).body.name).toBe('Reminders');
  });

  it("answers within the routes' deadline even while the SDK would keep retrying", async () => {
    const campaign = await draft();
    await setCampaignState(services.db.dataSource, campaign.id, 'running');
    const retrying = new Client({
      connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: '1 second' }),
    });
    const app = buildTestApp({ dataSource: services.db.dataSource, temporal: retrying }, env).app.callback();
    const started = Date.now();
    const res = await as(org.owner, app).post(`/campaign/${campaign.id}/pause`);
    expect(res.status).toBe(503);
    // The 10 s deadline plus the lazy connection's own attempts: about 15 s, never the SDK's minute of retries.
    expect(Date.now() - started).toBeLessThan(25_000);
  });

  it('answers the progress of a running campaign with 503 rather than a guess', async () => {
    const campaign = await draft();
    await setCampaignState(services.db.dataSource, campaign.id, 'running');
    const res = await as(org.owner, deadApp()).get(`/campaign/${campaign.id}/progress`);
    expect(res.status).toBe(503);
  });
});
