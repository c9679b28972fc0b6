import request from 'supertest';
import {
  CAMPAIGN_WAIT,
  campaignAttempts,
  campaignLogs,
  campaignRow,
  campaignSettings,
  insertCampaign,
  startCampaignWorkflow,
  useCampaignTestFile,
} from '../helpers/campaigns';
import type { CallingOrganization } from '../helpers/calls';
import { terminateAll } from '../helpers/temporal';
import { createPhoneNumber, createTelephonyConfig } from '../helpers/telephony';
import { campaignWorkflowId } from '../../workflows/definitions';
import { waitFor } from '../helpers/wait-for';

const { services, taskQueue, bed, createWorker } = useCampaignTestFile('campaign-failover');

const contacts = (count: number, first: number) =>
  Array.from({ length: count }, (_, index) => ({ phoneNumber: `+1415555${String(first + index).padStart(4, '0')}` }));

// Three calls in the window, half of them failed: the breaker trips on the third failure.
const settings = campaignSettings({
  max_concurrency: 3,
  circuit_breaker: { enabled: true, failure_threshold: 0.5, window_seconds: 300, min_calls_in_window: 3 },
});

/** A second simulator configuration of the organization, with the caller number +14155550199. */
async function fallbackConfiguration(org: CallingOrganization, simulator: Record<string, unknown>) {
  const configuration = await createTelephonyConfig(bed().baseUrl, org.owner.token, {
    provider: 'simulator',
    ...simulator,
  });
  await createPhoneNumber(bed().baseUrl, org.owner.token, configuration.id, { address: '+14155550199' });
  return configuration;
}

/** The campaign's configurations, as a create through the API stores them. */
async function withFallback(campaignId: number, org: CallingOrganization, fallbackId: number) {
  await services.db.dataSource.query(
    `UPDATE campaigns SET telephony_configuration_id = $2, fallback_telephony_configuration_id = $3,
                          fallback_caller_number = '+14155550199'
      WHERE id = $1`,
    [campaignId, org.configuration.id, fallbackId],
  );
}

const callerNumbers = (campaignId: number) =>
  services.db.dataSource.query<{ from_address: string; count: number }[]>(
    `SELECT from_address, count(*)::int AS count FROM simulator_calls
      WHERE split_part(idempotency_key, '/', 1) = $1 GROUP BY from_address`,
    [`campaign-${campaignId}`],
  );

describe('provider failover', () => {
  it('switches to the fallback configuration when the breaker trips, logs provider_failover, and completes', async () => {
    // The primary configuration's carrier is down: every dial is answered 503.
    const org = await bed().organization({ ring_seconds: 0, talk_seconds: 0, dial_error_status: 503 });
    const fallback = await fallbackConfiguration(org, { ring_seconds: 0, talk_seconds: 0 });
    const { campaignId } = await insertCampaign(services.db.dataSource, org, contacts(10, 6000), settings);
    await withFallback(campaignId, org, fallback.id);
    await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
    const worker = await createWorker();
    await worker.runUntil(
      waitFor(
        'the campaign to complete',
        async () => (await campaignRow(services.db.dataSource, campaignId)).state === 'completed',
        {
          ...CAMPAIGN_WAIT,
          timeoutMs: 120_000,
        },
      ),
    );

    const attempts = await campaignAttempts(services.db.dataSource, campaignId);
    const failed = attempts.filter((attempt) => attempt.outcome === 'error');
    const completed = attempts.filter((attempt) => attempt.outcome === 'completed');
    // The calls in flight when it tripped failed on the primary; the fallback dialed the rest.
    expect(failed.length).toBeGreaterThanOrEqual(3);
    expect(failed.length + completed.length).toBe(10);
    expect(await callerNumbers(campaignId)).toEqual([{ from_address: '+14155550199', count: completed.length }]);

    const logs = await campaignLogs(services.db.dataSource, campaignId);
    const failover = logs.find((log) => log.event === 'provider_failover');
    expect(failover).toMatchObject({
      level: 'warning',
      details: {
        failure_count: 3,
        call_count: 3,
        threshold: 0.5,
        from_telephony_configuration_id: org.configuration.id,
        to_telephony_configuration_id: fallback.id,
      },
    });
    expect(failover?.message).toMatch(
      /^Switched to the fallback telephony configuration \d+: failure rate 100\.00% \(3\/3\)/,
    );
    expect(logs.map((log) => log.event)).not.toContain('circuit_breaker_tripped');

    // The campaign and its progress name the configuration it dials through now.
    const view = await request(bed().baseUrl).get(`/api/v1/campaign/${campaignId}`).set('X-API-Key', org.apiKey);
    expect(view.body).toMatchObject({
      telephony_configuration_id: org.configuration.id,
      fallback_telephony_configuration_id: fallback.id,
      fallback_caller_number: '+14155550199',
      active_telephony_configuration_id: fallback.id,
    });
    expect(view.body.failed_over_at).toEqual(expect.any(String));
    const progress = await request(bed().baseUrl)
      .get(`/api/v1/campaign/${campaignId}/progress`)
      .set('X-API-Key', org.apiKey);
    expect(progress.body).toMatchObject({ state: 'completed', active_telephony_configuration_id: fallback.id });
  }, 180_000);

  it('pauses when the fallback fails too', async () => {
    const org = await bed().organization({ ring_seconds: 0, talk_seconds: 0, dial_error_status: 503 });
    const fallback = await fallbackConfiguration(org, { ring_seconds: 0, talk_seconds: 0, dial_error_status: 401 });
    const { campaignId } = await insertCampaign(services.db.dataSource, org, contacts(20, 7000), settings);
    await withFallback(campaignId, org, fallback.id);
    await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
    const worker = await createWorker();
    await worker.runUntil(
      waitFor(
        'the campaign to pause',
        async () => (await campaignRow(services.db.dataSource, campaignId)).state === 'paused',
        {
          ...CAMPAIGN_WAIT,
          timeoutMs: 120_000,
        },
      ),
    );
    const events = (await campaignLogs(services.db.dataSource, campaignId)).map((log) => log.event);
    expect(events).toEqual(['campaign_started', 'provider_failover', 'circuit_breaker_tripped']);
    // Neither carrier took a call; the fallback's refusals (401) are what paused it.
    expect(await callerNumbers(campaignId)).toEqual([]);
    const attempts = await campaignAttempts(services.db.dataSource, campaignId);
    expect(attempts.filter((attempt) => attempt.outcome === 'failed').length).toBeGreaterThanOrEqual(3);
    await terminateAll(services.temporal.client, [campaignWorkflowId(campaignId)]);
  }, 180_000);
});

describe('a fallback changed while the campaign is paused', () => {
  it('re-arms the failover: on resume the campaign fails over to the new fallback, with its caller number', async () => {
    const org = await bed().organization({ ring_seconds: 0, talk_seconds: 0, dial_error_status: 503 });
    const broken = await fallbackConfiguration(org, { ring_seconds: 0, talk_seconds: 0, dial_error_status: 401 });
    const { campaignId } = await insertCampaign(services.db.dataSource, org, contacts(20, 8000), settings);
    await withFallback(campaignId, org, broken.id);
    const working = await createTelephonyConfig(bed().baseUrl, org.owner.token, {
      provider: 'simulator',
      ring_seconds: 0,
      talk_seconds: 0,
    });
    await createPhoneNumber(bed().baseUrl, org.owner.token, working.id, { address: '+14155550177' });
    const api = (method: 'patch' | 'post', path: string) =>
      request(bed().baseUrl)[method](`/api/v1/campaign/${campaignId}${path}`).set('X-API-Key', org.apiKey);
    await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
    const worker = await createWorker();
    const state = async () => (await campaignRow(services.db.dataSource, campaignId)).state;
    await worker.runUntil(async () => {
      await waitFor('the campaign to pause', async () => (await state()) === 'paused', {
        ...CAMPAIGN_WAIT,
        timeoutMs: 120_000,
      });
      const patched = await api('patch', '').send({
        fallback_telephony_configuration_id: working.id,
        fallback_caller_number: '+14155550177',
        voicemail_action: 'hang_up',
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        fallback_telephony_configuration_id: working.id,
        fallback_caller_number: '+14155550177',
        voicemail_action: 'hang_up',
        active_telephony_configuration_id: org.configuration.id,
        failed_over_at: null,
      });
      expect((await api('post', '/resume').send({})).status).toBe(200);
      await waitFor('the campaign to complete', async () => (await state()) === 'completed', {
        ...CAMPAIGN_WAIT,
        timeoutMs: 120_000,
      });
    });

    const logs = await campaignLogs(services.db.dataSource, campaignId);
    const failovers = logs.filter((log) => log.event === 'provider_failover');
    // The first to the broken fallback; after the change, from the primary again to the new one.
    expect(failovers.map((log) => log.details.to_telephony_configuration_id)).toEqual([broken.id, working.id]);
    expect(failovers[1]?.details.from_telephony_configuration_id).toBe(org.configuration.id);
    expect(logs.find((log) => log.event === 'config_updated')?.details).toMatchObject({
      voicemail_action: 'hang_up',
      fallback: { telephony_configuration_id: working.id, caller_number: '+14155550177' },
    });
    const completed = (await campaignAttempts(services.db.dataSource, campaignId)).filter(
      (attempt) => attempt.outcome === 'completed',
    );
    expect(completed.length).toBeGreaterThan(0);
    expect(await callerNumbers(campaignId)).toEqual([{ from_address: '+14155550177', count: completed.length }]);
    const [stored] = await services.db.dataSource.query<{ voicemail_action: string; fallback_id: number }[]>(
      'SELECT voicemail_action, fallback_telephony_configuration_id AS fallback_id FROM campaigns WHERE id = $1',
      [campaignId],
    );
    expect(stored).toEqual({ voicemail_action: 'hang_up', fallback_id: working.id });
  }, 240_000);
});
