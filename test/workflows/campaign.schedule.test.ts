import { DateTime } from 'luxon';
import { campaignProgressQuery, cancelCampaignUpdate, type ScheduleConfig } from '../../workflows/definitions';
import {
  campaignAttempts,
  campaignLogs,
  campaignRow,
  campaignSettings,
  campaignTestBed,
  campaignWorker,
  insertCampaign,
  startCampaignWorkflow,
  CAMPAIGN_WAIT,
  type CampaignTestBed,
} from '../helpers/campaigns';
import type { CallingOrganization } from '../helpers/calls';
import { useTestServices } from '../helpers/services';
import { uniqueTaskQueue } from '../helpers/temporal';
import { waitFor } from '../helpers/wait-for';

const services = useTestServices();
const taskQueue = uniqueTaskQueue('campaign-schedule');
let bed: CampaignTestBed;
let org: CallingOrganization;

beforeAll(async () => {
  bed = await campaignTestBed(services, taskQueue);
  org = await bed.organization({ ring_seconds: 0, talk_seconds: 0 });
});
afterAll(() => bed.close());

const withWorker = async <T>(test: () => Promise<T>): Promise<T> =>
  (await campaignWorker(services, taskQueue, bed.baseUrl)).runUntil(test);

const hhmm = (time: DateTime): string => time.toFormat('HH:mm');
const everyDay = (start: string, end: string) =>
  Array.from({ length: 7 }, (_, day) => ({ day_of_week: day, start_time: start, end_time: end }));

const dialsTo = async (phone: string): Promise<Date[]> =>
  (
    await services.db.dataSource.query<{ started_at: Date }[]>(
      `SELECT started_at FROM simulator_calls WHERE to_address = $1`,
      [phone],
    )
  ).map((row) => row.started_at);

describe('campaign schedule windows', () => {
  it("dials nothing outside the campaign's window, logs next_open_at once, and dials a contact whose own timezone is open", async () => {
    // The window is the current hour in Tokyo, evaluated in UTC: closed now for UTC contacts. In
    // an hour's last minute the test waits for the next hour, so the Tokyo contact's window (whose
    // end is 23:59 at 23 h) stays open while it runs.
    const lastMinute = DateTime.utc();
    if (lastMinute.minute === 59) {
      await new Promise((resolve) => setTimeout(resolve, lastMinute.endOf('hour').diffNow().toMillis() + 1_000));
    }
    const now = DateTime.utc();
    const tokyoHour = now.setZone('Asia/Tokyo').startOf('hour');
    const schedule: ScheduleConfig = {
      enabled: true,
      timezone: 'UTC',
      slots: everyDay(hhmm(tokyoHour), tokyoHour.hour === 23 ? '23:59' : hhmm(tokyoHour.plus({ hours: 1 }))),
    };
    let opensUtc = now.startOf('day').set({ hour: tokyoHour.hour });
    if (opensUtc <= now) opensUtc = opensUtc.plus({ days: 1 });

    const contacts = [
      { phoneNumber: '+14156110001', timezone: 'Asia/Tokyo' },
      { phoneNumber: '+14156110002' },
      { phoneNumber: '+14156110003' },
    ];
    const { campaignId } = await insertCampaign(
      services.db.dataSource,
      org,
      contacts,
      campaignSettings({ schedule_config: schedule }),
    );
    const handle = await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
    await withWorker(async () => {
      const waiting = await waitFor(
        'the waiting log',
        async () => {
          const logs = await campaignLogs(services.db.dataSource, campaignId);
          return logs.find((log) => log.event === 'waiting_for_schedule_window');
        },
        CAMPAIGN_WAIT,
      );
      expect(waiting.details).toEqual({ next_open_at: opensUtc.toISO({ suppressMilliseconds: false }) });
      expect(new Date(String(waiting.details.next_open_at)).getTime()).toBe(opensUtc.toMillis());
      await waitFor(
        'the Tokyo contact to finish',
        async () => (await campaignRow(services.db.dataSource, campaignId)).processed_rows === 1,
        CAMPAIGN_WAIT,
      );
      // Still waiting a moment later: nothing dialed, logged once, and the progress says until when.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const progress = await handle.query(campaignProgressQuery);
      expect(progress).toMatchObject({ state: 'running', processed_rows: 1, executed_count: 1, in_flight: 0 });
      expect(new Date(progress.next_open_at ?? 0).getTime()).toBe(opensUtc.toMillis());
      expect(await dialsTo('+14156110001')).toHaveLength(1);
      expect(await dialsTo('+14156110002')).toHaveLength(0);
      expect(await dialsTo('+14156110003')).toHaveLength(0);
      const logs = await campaignLogs(services.db.dataSource, campaignId);
      expect(logs.filter((log) => log.event === 'waiting_for_schedule_window')).toHaveLength(1);
      // A cancel wakes the waiting workflow.
      expect(await handle.executeUpdate(cancelCampaignUpdate)).toBe('cancelled');
      await handle.result();
    });
    const attempts = await campaignAttempts(services.db.dataSource, campaignId);
    expect(attempts.map((attempt) => [attempt.phone_number, attempt.outcome])).toEqual([['+14156110001', 'completed']]);
  }, 120_000);

  it('sleeps on a durable timer until a window opens, then dials', async () => {
    // A window opening at a minute boundary 30–90 s ahead (UTC), a few minutes long: at least 30 s
    // so a slow worker start cannot find it already open.
    const opens = DateTime.utc().plus({ seconds: 30 }).startOf('minute').plus({ minutes: 1 });
    const schedule: ScheduleConfig = {
      enabled: true,
      timezone: 'UTC',
      slots: [{ day_of_week: opens.weekday - 1, start_time: hhmm(opens), end_time: hhmm(opens.plus({ minutes: 5 })) }],
    };
    const contacts = [{ phoneNumber: '+14156120001' }, { phoneNumber: '+14156120002' }];
    const { campaignId } = await insertCampaign(
      services.db.dataSource,
      org,
      contacts,
      campaignSettings({ schedule_config: schedule }),
    );
    const handle = await startCampaignWorkflow(services.temporal.client, taskQueue, org, campaignId);
    await withWorker(() => handle.result());

    const logs = await campaignLogs(services.db.dataSource, campaignId);
    expect(logs.map((log) => log.event)).toEqual([
      'campaign_started',
      'waiting_for_schedule_window',
      'campaign_completed',
    ]);
    expect(new Date(String(logs[1]?.details.next_open_at)).getTime()).toBe(opens.toMillis());
    for (const contact of contacts) {
      const dials = await dialsTo(contact.phoneNumber);
      expect(dials).toHaveLength(1);
      expect(dials[0]?.getTime()).toBeGreaterThanOrEqual(opens.toMillis());
    }
  }, 150_000);
});
