import request from 'supertest';
import type { DataSource } from 'typeorm';
import {
  CAMPAIGN_WAIT,
  campaignAttempts,
  campaignRow,
  campaignSettings,
  insertCampaign,
  startCampaignWorkflow,
  useCampaignTestFile,
} from '../helpers/campaigns';
import type { CallingOrganization } from '../helpers/calls';
import { waitFor } from '../helpers/wait-for';

const { services, taskQueue, bed, createWorker } = useCampaignTestFile('campaign-pacing');

const contacts = (count: number, first = 2000) =>
  Array.from({ length: count }, (_, index) => ({ phoneNumber: `+1415555${String(first + index).padStart(4, '0')}` }));

/** Sets the configuration's dial rate through the API. */
async function setCallsPerSecond(org: CallingOrganization, callsPerSecond: number): Promise<void> {
  const res = await request(bed().baseUrl)
    .put(`/api/v1/organizations/telephony-configs/${org.configuration.id}`)
    .set('X-API-Key', org.apiKey)
    .send({ calls_per_second: callsPerSecond });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ calls_per_second: callsPerSecond, effective_calls_per_second: callsPerSecond });
}

/** The simulator's record of the dials of these campaigns (accepted dials only), oldest first. */
async function dialTimes(dataSource: DataSource, campaignIds: number[]): Promise<number[]> {
  const rows = await dataSource.query<{ started_at: Date }[]>(
    `SELECT started_at FROM simulator_calls WHERE split_part(idempotency_key, '/', 1) = ANY($1) ORDER BY started_at`,
    [campaignIds.map((id) => `campaign-${id}`)],
  );
  return rows.map((row) => row.started_at.getTime());
}

/**
 * Turns are spaced 1 / rate apart when taken, right before the dial; the simulator stamps a dial
 * when its request arrives, after an HTTP hop through a loaded machine. One dial held up past the
 * next turn can share a second with two others, so a window may hold the rate plus one; the
 * spacing of the whole run shows the rate itself.
 */
const ARRIVAL_JITTER_ALLOWANCE = 1;

/** The most dials in any one-second window [t, t + 1 s). */
function busiestSecond(times: number[]): number {
  let most = 0;
  for (let start = 0, end = 0; end < times.length; end += 1) {
    while ((times[end] ?? 0) - (times[start] ?? 0) >= 1000) start += 1;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

const allCompleted = async (campaignIds: number[]) => {
  for (const id of campaignIds) {
    if ((await campaignRow(services.db.dataSource, id)).state !== 'completed') return false;
  }
  return true;
};

describe('dial pacing', () => {
  it('never dials a 2 calls/s configuration faster, also across a worker restart', async () => {
    const org = await bed().organization({ ring_seconds: 0, talk_seconds: 0 });
    await setCallsPerSecond(org, 2);
    const { campaignId } = await insertCampaign(
      services.db.dataSource,
      org,
      contacts(14),
      campaignSettings({ max_concurrency: 10 }),
    );
    await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);

    // The first worker stops after a few dials, with calls waiting their turn on durable timers.
    const first = await createWorker();
    await first.runUntil(
      waitFor('four dials', async () => (await dialTimes(services.db.dataSource, [campaignId])).length >= 4, {
        timeoutMs: 60_000,
      }),
    );
    const second = await createWorker();
    await second.runUntil(waitFor('the campaign to complete', () => allCompleted([campaignId]), CAMPAIGN_WAIT));

    const times = await dialTimes(services.db.dataSource, [campaignId]);
    expect(times).toHaveLength(14);
    expect(busiestSecond(times)).toBeLessThanOrEqual(2 + ARRIVAL_JITTER_ALLOWANCE);
    // Fourteen turns half a second apart: 6.5 s from first to last, less a late first arrival.
    expect((times.at(-1) ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(6000);
    const attempts = await campaignAttempts(services.db.dataSource, campaignId);
    expect(attempts.every((attempt) => attempt.outcome === 'completed')).toBe(true);
  }, 120_000);

  it('shares the rate between two campaigns on the same configuration', async () => {
    const org = await bed().organization({ ring_seconds: 0, talk_seconds: 0 });
    await setCallsPerSecond(org, 2);
    const settings = campaignSettings({ max_concurrency: 5 });
    const a = await insertCampaign(services.db.dataSource, org, contacts(6, 3000), settings);
    const b = await insertCampaign(services.db.dataSource, org, contacts(6, 4000), settings);
    const ids = [a.campaignId, b.campaignId];
    await startCampaignWorkflow(services.temporal.client, taskQueue, org, a.campaignId);
    await startCampaignWorkflow(services.temporal.client, taskQueue, org, b.campaignId);
    const worker = await createWorker();
    await worker.runUntil(waitFor('both campaigns to complete', () => allCompleted(ids), CAMPAIGN_WAIT));

    const times = await dialTimes(services.db.dataSource, ids);
    expect(times).toHaveLength(12);
    expect(busiestSecond(times)).toBeLessThanOrEqual(2 + ARRIVAL_JITTER_ALLOWANCE);
    // Twelve dials at two per second, in turns half a second apart: at least 5.5 s from first to last.
    expect((times.at(-1) ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(5500);
  }, 90_000);

  it("slows down on the provider's 429 with Retry-After instead of failing calls", async () => {
    // The virtual carrier takes one dial per second; the configuration would dial 20.
    const org = await bed().organization({ ring_seconds: 0, talk_seconds: 0, max_calls_per_second: 1 });
    await setCallsPerSecond(org, 20);
    const { campaignId } = await insertCampaign(
      services.db.dataSource,
      org,
      contacts(5, 5000),
      campaignSettings({ max_concurrency: 5 }),
    );
    await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
    const worker = await createWorker();
    await worker.runUntil(waitFor('the campaign to complete', () => allCompleted([campaignId]), CAMPAIGN_WAIT));

    const attempts = await campaignAttempts(services.db.dataSource, campaignId);
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(Array(5).fill('completed'));
    const times = await dialTimes(services.db.dataSource, [campaignId]);
    expect(times).toHaveLength(5);
    // Each 429 held every dial of the configuration for the Retry-After second.
    expect(busiestSecond(times)).toBe(1);
    const [pacing] = await services.db.dataSource.query<{ dials: string }[]>(
      `SELECT dials FROM telephony_dial_pacing WHERE telephony_configuration_id = $1`,
      [org.configuration.id],
    );
    // Turns taken: the five accepted dials and the ones the carrier refused.
    expect(Number(pacing?.dials)).toBeGreaterThan(5);
  }, 90_000);
});
