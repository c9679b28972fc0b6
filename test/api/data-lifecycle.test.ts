import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { signUp, type SignedUp, type TestServer } from '../helpers/accounts';
import { createAgent, type CreatedAgent } from '../helpers/agents';
import { createCampaign, insertAttempt, insertContactSource, setCampaignState } from '../helpers/campaign-api';
import { useTestServices } from '../helpers/services';

const services = useTestServices();
const PERSON = '+14155550123';

let app: TestServer;
let recordingsDir: string;
let owner: SignedUp;
let other: SignedUp;
let agent: CreatedAgent;

beforeAll(async () => {
  recordingsDir = await mkdtemp(join(tmpdir(), 'lifecycle-recordings-'));
  app = services.server({ RECORDINGS_DIR: recordingsDir, QUOTA_CAMPAIGN_SOURCES: '2' });
  owner = await signUp(app);
  other = await signUp(app);
  agent = await createAgent(app, owner.token, undefined, 'Lifecycle agent');
});

const as = (who: SignedUp) => ({
  get: (path: string) => request(app).get(`/api/v1${path}`).auth(who.token, { type: 'bearer' }),
  delete: (path: string) => request(app).delete(`/api/v1${path}`).auth(who.token, { type: 'bearer' }),
  post: (path: string, body: object) =>
    request(app).post(`/api/v1${path}`).auth(who.token, { type: 'bearer' }).send(body),
  put: (path: string, body: object) =>
    request(app).put(`/api/v1${path}`).auth(who.token, { type: 'bearer' }).send(body),
});

/** A finished call as the call engine leaves it: numbers, contexts, a transcript and a recording on disk. */
async function insertCall(called: string, change: { state?: string; createdAt?: string; campaignId?: number } = {}) {
  const [row] = await services.db.dataSource.query<{ id: number }[]>(
    `INSERT INTO runs (organization_id, workflow_id, definition_id, name, mode, state, is_completed, campaign_id,
                       caller_number, called_number, call_duration_seconds, platform_token_usage, charge_usd,
                       initial_context, gathered_context, logs, annotations, created_at)
     VALUES ($1, $2, $3, 'call', 'simulator', $4, $4 = 'completed', $5, '+12025550000', $6, 60, 1000, 0.05,
             '{"first_name": "Ada"}', '{"callback_time": "5pm"}',
             '{"transcript": [{"at": "2026-03-02T15:04:05.000Z", "role": "user", "text": "call me at 5"}]}',
             '{"analysis": {"summary": "wants a callback"}}', coalesce($7::timestamptz, now()))
     RETURNING id`,
    [
      owner.user.organization_id,
      agent.id,
      agent.current_definition_id,
      change.state ?? 'completed',
      change.campaignId ?? null,
      called,
      change.createdAt ?? null,
    ],
  );
  const runId = row!.id;
  await writeFile(join(recordingsDir, `${runId}.wav`), Buffer.alloc(64));
  await services.db.dataSource.query(`UPDATE runs SET recording_url = $2 WHERE id = $1`, [
    runId,
    `/api/v1/workflow/${agent.id}/runs/${runId}/recording`,
  ]);
  return runId;
}

const runRow = async (runId: number) => {
  const [row] = await services.db.dataSource.query<Record<string, unknown>[]>(`SELECT * FROM runs WHERE id = $1`, [
    runId,
  ]);
  return row!;
};
const recordingFiles = () => readdir(recordingsDir);

describe('deleting a contact list', () => {
  it('is refused while an unfinished campaign uses it; afterwards the finished campaign keeps its counters', async () => {
    const orgId = owner.user.organization_id;
    const sourceId = await insertContactSource(services.db.dataSource, orgId, [
      { phone_number: '+14155550101', first_name: 'Ada' },
      { phone_number: '+14155550102', first_name: 'Bob' },
    ]);
    const campaign = await createCampaign(app, owner.token, {
      name: 'Spring',
      workflow_id: agent.id,
      source_type: 'csv',
      source_id: sourceId,
    });
    const [contact] = await services.db.dataSource.query<{ id: string }[]>(
      `SELECT id FROM campaign_contacts WHERE source_id = $1 ORDER BY row_number LIMIT 1`,
      [sourceId],
    );
    await insertAttempt(services.db.dataSource, {
      campaignId: campaign.id,
      contactId: contact!.id,
      attempt: 1,
      outcome: 'completed',
    });

    const refused = await as(owner).delete(`/campaign/sources/${sourceId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(`${campaign.id} (draft)`);
    expect((await as(other).delete(`/campaign/sources/${sourceId}`)).status).toBe(404);

    await services.db.dataSource.query(
      `UPDATE campaigns SET processed_rows = 2, executed_count = 2, failed_rows = 1 WHERE id = $1`,
      [campaign.id],
    );
    await setCampaignState(services.db.dataSource, campaign.id, 'completed');
    const deleted = await as(owner).delete(`/campaign/sources/${sourceId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, message: 'Contact list deleted' });

    const [left] = await services.db.dataSource.query<{ contacts: number; attempts: number }[]>(
      `SELECT (SELECT count(*)::int FROM campaign_contacts WHERE source_id = $1) AS contacts,
              (SELECT count(*)::int FROM campaign_attempts WHERE campaign_id = $2) AS attempts`,
      [sourceId, campaign.id],
    );
    expect(left).toEqual({ contacts: 0, attempts: 0 });
    const shown = await as(owner).get(`/campaign/${campaign.id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ state: 'completed', source_id: null, processed_rows: 2, failed_rows: 1 });
    const redial = await as(owner).post(`/campaign/${campaign.id}/redial`, {});
    expect(redial.status).toBe(409);
    expect((await as(owner).delete(`/campaign/sources/${sourceId}`)).status).toBe(404);
  });

  it('frees the quota of contact lists', async () => {
    const orgId = other.user.organization_id;
    const upload = () =>
      request(app)
        .post('/api/v1/campaign/sources')
        .auth(other.token, { type: 'bearer' })
        .set('Content-Type', 'text/csv')
        .send('phone_number\n+14155550111\n');
    const first = await upload();
    expect(first.status).toBe(201);
    await insertContactSource(services.db.dataSource, orgId, [{ phone_number: '+14155550112' }]);
    expect((await upload()).status).toBe(409);
    expect((await as(other).delete(`/campaign/sources/${first.body.source_id}`)).status).toBe(200);
    expect((await upload()).status).toBe(201);
  });
});

describe('deleting a campaign', () => {
  it('deletes a finished campaign only; its runs stay with the agent', async () => {
    const sourceId = await insertContactSource(services.db.dataSource, owner.user.organization_id, [
      { phone_number: '+14155550103', first_name: 'Cy' },
    ]);
    const campaign = await createCampaign(app, owner.token, {
      name: 'Summer',
      workflow_id: agent.id,
      source_type: 'csv',
      source_id: sourceId,
    });
    const runId = await insertCall('+14155550103', { campaignId: campaign.id });

    await setCampaignState(services.db.dataSource, campaign.id, 'running');
    const refused = await as(owner).delete(`/campaign/${campaign.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('current state: running');
    expect((await as(other).delete(`/campaign/${campaign.id}`)).status).toBe(404);

    await setCampaignState(services.db.dataSource, campaign.id, 'cancelled');
    expect((await as(owner).delete(`/campaign/${campaign.id}`)).status).toBe(200);
    expect((await as(owner).get(`/campaign/${campaign.id}`)).status).toBe(404);
    expect(await runRow(runId)).toMatchObject({ campaign_id: null, called_number: '+14155550103' });
    // The list is free again: no campaign uses it.
    expect((await as(owner).delete(`/campaign/sources/${sourceId}`)).status).toBe(200);
  });
});

describe('deleting a run and a recording', () => {
  it("erases a run's personal data and keeps its usage totals", async () => {
    const runId = await insertCall('+14155550104');
    const usageBefore = await as(owner).get('/organizations/usage/runs');
    expect((await as(other).delete(`/workflow/${agent.id}/runs/${runId}`)).status).toBe(404);

    const erased = await as(owner).delete(`/workflow/${agent.id}/runs/${runId}`);
    expect(erased.status).toBe(200);
    expect(await recordingFiles()).not.toContain(`${runId}.wav`);
    const row = await runRow(runId);
    expect(row).toMatchObject({
      caller_number: null,
      called_number: null,
      initial_context: {},
      gathered_context: {},
      logs: {},
      annotations: {},
      recording_url: null,
      call_duration_seconds: 60,
      platform_token_usage: '1000',
    });
    expect(row.erased_at).not.toBeNull();

    const shown = await as(owner).get(`/workflow/${agent.id}/runs/${runId}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ called_number: null, recording_url: null, initial_context: {} });
    const usageAfter = await as(owner).get('/organizations/usage/runs');
    expect(usageAfter.body.total_duration_seconds).toBe(usageBefore.body.total_duration_seconds);
    expect(usageAfter.body.total_dograh_tokens).toBe(usageBefore.body.total_dograh_tokens);
    expect((await as(owner).delete(`/workflow/${agent.id}/runs/${runId}`)).status).toBe(200);
  });

  it('refuses a run in progress', async () => {
    const runId = await insertCall('+14155550105', { state: 'running' });
    expect((await as(owner).delete(`/workflow/${agent.id}/runs/${runId}`)).status).toBe(409);
  });

  it('deletes only the recording', async () => {
    const runId = await insertCall('+14155550106');
    const path = `/workflow/${agent.id}/runs/${runId}/recording`;
    expect((await as(owner).get(path)).status).toBe(200);
    expect((await as(other).delete(path)).status).toBe(404);
    expect((await as(owner).delete(path)).status).toBe(200);
    expect((await as(owner).get(path)).status).toBe(404);
    expect((await as(owner).delete(path)).status).toBe(404);
    expect(await runRow(runId)).toMatchObject({ recording_url: null, called_number: '+14155550106' });
  });
});

describe('erasing a person', () => {
  it("removes the number's contacts, runs' personal data and recordings, and keeps it on the do-not-call list", async () => {
    const orgId = owner.user.organization_id;
    const sourceA = await insertContactSource(services.db.dataSource, orgId, [
      { phone_number: PERSON, first_name: 'Eve' },
      { phone_number: '+14155550199', first_name: 'Fay' },
    ]);
    const sourceB = await insertContactSource(services.db.dataSource, orgId, [
      { phone_number: PERSON, first_name: 'Eve' },
    ]);
    const theirs = await insertContactSource(services.db.dataSource, other.user.organization_id, [
      { phone_number: PERSON },
    ]);
    const runs = [await insertCall(PERSON), await insertCall(PERSON)];
    const live = await insertCall(PERSON, { state: 'running' });
    const bystander = await insertCall('+14155550199');
    expect((await as(owner).post('/organizations/do-not-call', { phone_number: PERSON })).status).toBe(201);

    const res = await as(owner).post('/erasure', { phone_number: '+1 (415) 555-0123' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      matched_numbers: ['+1 (415) 555-0123', PERSON],
      contacts_deleted: 2,
      runs_erased: 2,
      recordings_deleted: 2,
      runs_in_progress: 1,
      on_do_not_call_list: true,
    });
    for (const runId of runs) expect(await runRow(runId)).toMatchObject({ called_number: null, logs: {} });
    expect(await runRow(live)).toMatchObject({ called_number: PERSON });
    expect(await runRow(bystander)).toMatchObject({ called_number: '+14155550199' });
    const files = await recordingFiles();
    expect(files).not.toContain(`${runs[0]}.wav`);
    expect(files).toContain(`${bystander}.wav`);
    const counts = await services.db.dataSource.query<{ source_id: string; n: number }[]>(
      `SELECT source_id, count(*)::int AS n FROM campaign_contacts WHERE source_id = ANY($1) GROUP BY source_id`,
      [[sourceA, sourceB, theirs]],
    );
    expect(Object.fromEntries(counts.map((row) => [row.source_id, row.n]))).toEqual({ [sourceA]: 1, [theirs]: 1 });
    const listed = await as(owner).get('/organizations/do-not-call');
    expect(listed.body.numbers).toEqual([expect.objectContaining({ phone_number: PERSON })]);

    const again = await as(owner).post('/erasure', { phone_number: PERSON });
    expect(again.body).toMatchObject({ contacts_deleted: 0, runs_erased: 0, recordings_deleted: 0 });
  });

  it('answers 422 without a number', async () => {
    const res = await as(owner).post('/erasure', {});
    expect(res.status).toBe(422);
  });
});

describe('retention setting', () => {
  it('is null until set, and is validated', async () => {
    expect((await as(other).get('/organizations/retention')).body).toEqual({ retention_days: null });
    const set = await as(other).put('/organizations/retention', { retention_days: 30 });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ retention_days: 30 });
    expect((await as(other).get('/organizations/retention')).body).toEqual({ retention_days: 30 });
    expect((await as(owner).get('/organizations/retention')).body).toEqual({ retention_days: null });
    expect((await as(other).put('/organizations/retention', { retention_days: 0 })).status).toBe(422);
    expect((await as(other).put('/organizations/retention', { retention_days: null })).body).toEqual({
      retention_days: null,
    });
  });
});
