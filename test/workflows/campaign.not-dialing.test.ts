import { DateTime } from 'luxon';
import request from 'supertest';
import { cancelCampaignUpdate, campaignWorkflowId, type ScheduleConfig } from '../../workflows/definitions';
import type { CallingOrganization } from '../helpers/calls';
import {
  campaignSettings,
  insertCampaign,
  startCampaignWorkflow,
  CAMPAIGN_WAIT,
  useCampaignTestFile,
} from '../helpers/campaigns';
import { waitFor } from '../helpers/wait-for';

const { services, taskQueue, bed, withWorker } = useCampaignTestFile('campaign-not-dialing');
let org: CallingOrganization;

beforeAll(async () => {
  org = await bed().organization({ ring_seconds: 0, talk_seconds: 0 });
});

interface Reason {
  reason: string;
  message: string;
  until: string | null;
  count: number | null;
  details: Record<string, unknown>;
}

const notDialing = async (campaignId: number): Promise<Reason[] | null> => {
  const res = await request(bed().baseUrl)
    .get(`/api/v1/campaign/${campaignId}`)
    .auth(org.owner.token, { type: 'bearer' });
  expect(res.status).toBe(200);
  const body = res.body as { not_dialing: { reasons: Reason[] } | null };
  return body.not_dialing?.reasons ?? null;
};

const setState = async (
  campaignId: number,
  state: string,
  log?: { event: string; message: string; details: object },
) => {
  await services.db.dataSource.query(`UPDATE campaigns SET state = $2 WHERE id = $1`, [campaignId, state]);
  if (log) {
    await services.db.dataSource.query(
      `INSERT INTO campaign_logs (campaign_id, level, event, message, details) VALUES ($1, 'warning', $2, $3, $4)`,
      [campaignId, log.event, log.message, JSON.stringify(log.details)],
    );
  }
};

describe('why a campaign is not dialing', () => {
  it('a running campaign outside its calling window says until when, in the API and in its Temporal UI details', async () => {
    // The current hour in Tokyo, evaluated in UTC: closed now.
    const tokyoHour = DateTime.utc().setZone('Asia/Tokyo').startOf('hour');
    const end = tokyoHour.hour === 23 ? '23:59' : tokyoHour.plus({ hours: 1 }).toFormat('HH:mm');
    const schedule: ScheduleConfig = {
      enabled: true,
      timezone: 'UTC',
      slots: Array.from({ length: 7 }, (_, day) => ({
        day_of_week: day,
        start_time: tokyoHour.toFormat('HH:mm'),
        end_time: end,
      })),
    };
    const { campaignId } = await insertCampaign(
      services.db.dataSource,
      org,
      [{ phoneNumber: '+14155550301' }],
      campaignSettings({ schedule_config: schedule }),
    );
    await withWorker(async () => {
      const handle = await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
      const reasons = await waitFor(
        'the window reason',
        async () => {
          const found = await notDialing(campaignId);
          return found?.some((reason) => reason.reason === 'outside_calling_window') ? found : null;
        },
        CAMPAIGN_WAIT,
      );
      const [window] = reasons;
      expect(window?.message).toMatch(/^Outside its calling window until /);
      const opens = DateTime.fromISO(window?.until ?? '', { zone: 'utc' });
      expect(opens.hour).toBe(tokyoHour.hour);
      expect(opens > DateTime.utc()).toBe(true);

      const details = await waitFor(
        'the UI details',
        async () => {
          const metadata = await services.temporal.client.workflow
            .getHandle(campaignWorkflowId(campaignId))
            .query<{ currentDetails?: string }>('__temporal_workflow_metadata');
          return metadata.currentDetails?.includes('Not dialing: Outside its calling window') ? metadata : null;
        },
        CAMPAIGN_WAIT,
      );
      expect(details.currentDetails).toContain(window?.until);
      await handle.executeUpdate(cancelCampaignUpdate);
      await handle.result();
    });
    expect(await notDialing(campaignId)).toBeNull();
  }, 120_000);

  it('a draft says it was not started; a paused one whether a person or the circuit breaker paused it', async () => {
    const { campaignId } = await insertCampaign(services.db.dataSource, org, [{ phoneNumber: '+14155550302' }]);
    expect(await notDialing(campaignId)).toEqual([
      expect.objectContaining({
        reason: 'not_started',
        message: expect.stringContaining(`/campaign/${campaignId}/start`),
      }),
    ]);

    await setState(campaignId, 'paused', { event: 'campaign_paused', message: 'Campaign paused', details: {} });
    expect(await notDialing(campaignId)).toEqual([expect.objectContaining({ reason: 'paused' })]);

    const figures = { failure_rate: 0.6, failure_count: 6, call_count: 10, threshold: 0.5, window_seconds: 300 };
    await setState(campaignId, 'paused', {
      event: 'circuit_breaker_tripped',
      message: 'Paused: failure rate 60% (6/10) exceeded threshold 50% in 300s window',
      details: figures,
    });
    expect(await notDialing(campaignId)).toEqual([
      {
        reason: 'paused_by_circuit_breaker',
        message: expect.stringContaining('failure rate 60% (6/10)'),
        until: null,
        count: null,
        details: figures,
      },
    ]);
  });

  it('a failed campaign says why; a completed one answers null', async () => {
    const { campaignId } = await insertCampaign(services.db.dataSource, org, [{ phoneNumber: '+14155550303' }]);
    await setState(campaignId, 'failed', {
      event: 'campaign_failed',
      message: 'Campaign failed: no telephony configuration',
      details: { error: 'no telephony configuration', consecutive_failures: 3 },
    });
    expect(await notDialing(campaignId)).toEqual([
      {
        reason: 'failed',
        message: 'Campaign failed: no telephony configuration',
        until: null,
        count: null,
        details: { error: 'no telephony configuration', consecutive_failures: 3 },
      },
    ]);
    await setState(campaignId, 'completed');
    expect(await notDialing(campaignId)).toBeNull();
  });
});
