import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
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
  useCampaignTestFile,
} from '../helpers/campaigns';
import type { CallingOrganization } from '../helpers/calls';
import type { TestServices } from '../helpers/services';
import { createTimeSkippingEnvironment } from '../helpers/time-skipping';
import { testDataConverter, uniqueTaskQueue } from '../helpers/temporal';
import { waitFor } from '../helpers/wait-for';

const { services, taskQueue, bed, withWorker } = useCampaignTestFile('campaign-schedule');
let org: CallingOrganization;
/**
 * The time-skipping server of the second block: a JVM that takes seconds of CPU to start, so it
 * starts at once and comes up while the first block's campaign waits.
 */
let skippingServer: Promise<TestWorkflowEnvironment> | undefined;

beforeAll(async () => {
  skippingServer = createTimeSkippingEnvironment();
  // Awaited (and its failure reported) by the block that uses it.
  void skippingServer.catch(() => undefined);
  org = await bed().organization({ ring_seconds: 0, talk_seconds: 0 });
});
afterAll(async () => {
  const env = await skippingServer?.catch(() => undefined);
  await env?.teardown();
});

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
});

describe('campaign schedule windows, on a time-skipping server', () => {
  let env: TestWorkflowEnvironment;
  let skipping: TestServices;
  let skippingBed: CampaignTestBed;
  let skippingOrg: CallingOrganization;
  const skippingQueue = uniqueTaskQueue('campaign-schedule-skipping');

  beforeAll(async () => {
    if (!skippingServer) throw new Error('the time-skipping server is used before the file started it');
    env = await skippingServer;
    // A plain client never unlocks time skipping: the clock jumps only when the test skips it, and
    // runs at the wall clock's pace otherwise (the simulator's calls take real time).
    const client = new Client({ connection: env.connection, dataConverter: testDataConverter });
    const temporal = { client, nativeConnection: env.nativeConnection, close: () => Promise.resolve() };
    skipping = { db: services.db, temporal, server: services.server.bind(services) };
    skippingBed = await campaignTestBed(skipping, skippingQueue);
    skippingOrg = await skippingBed.organization({ ring_seconds: 0, talk_seconds: 0 });
  }, 180_000);
  afterAll(async () => {
    await skippingBed?.close();
  });

  it('sleeps on a durable timer until a window opens hours later, dialing nothing before it, then dials', async () => {
    const opens = DateTime.utc().plus({ hours: 2 }).startOf('hour');
    const schedule: ScheduleConfig = {
      enabled: true,
      timezone: 'UTC',
      slots: [
        {
          day_of_week: opens.weekday - 1,
          start_time: hhmm(opens),
          end_time: opens.hour === 23 ? '23:59' : hhmm(opens.plus({ hours: 1 })),
        },
      ],
    };
    const contacts = [{ phoneNumber: '+14156120001' }, { phoneNumber: '+14156120002' }];
    const { campaignId } = await insertCampaign(
      services.db.dataSource,
      skippingOrg,
      contacts,
      campaignSettings({ schedule_config: schedule }),
    );
    const handle = await startCampaignWorkflow(skipping.temporal.client, skippingQueue, skippingOrg, campaignId);
    let skippedAt = new Date();
    const worker = await campaignWorker(skipping, skippingQueue, skippingBed.baseUrl);
    await worker.runUntil(async () => {
      const waiting = await waitFor(
        'the waiting log',
        async () => {
          const logs = await campaignLogs(services.db.dataSource, campaignId);
          return logs.find((log) => log.event === 'waiting_for_schedule_window');
        },
        CAMPAIGN_WAIT,
      );
      expect(new Date(String(waiting.details.next_open_at)).getTime()).toBe(opens.toMillis());
      for (const contact of contacts) expect(await dialsTo(contact.phoneNumber)).toHaveLength(0);
      skippedAt = new Date();
      await env.sleep(opens.toMillis() - (await env.currentTimeMs()) + 1_000);
      expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(opens.toMillis());
      await handle.result();
    });

    const logs = await campaignLogs(services.db.dataSource, campaignId);
    expect(logs.map((log) => log.event)).toEqual([
      'campaign_started',
      'waiting_for_schedule_window',
      'campaign_completed',
    ]);
    for (const contact of contacts) {
      const dials = await dialsTo(contact.phoneNumber);
      expect(dials).toHaveLength(1);
      expect(dials[0]?.getTime()).toBeGreaterThanOrEqual(skippedAt.getTime());
    }
  }, 180_000);
});
