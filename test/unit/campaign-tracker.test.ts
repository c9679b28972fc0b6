import type { ContactRef, OpenedCampaign } from '../../activities/campaign.activities';
import { PAGE_SIZE, ROUTE_RETRY_MS, CampaignTracker } from '../../workflows/campaign/tracker';
import type { CampaignCarryOver, CampaignSettings } from '../../workflows/definitions';

const settings = (change: Partial<CampaignSettings> = {}): CampaignSettings => ({
  name: 'Tracker',
  max_concurrency: 2,
  retry_config: {
    enabled: true,
    max_retries: 1,
    retry_delay_seconds: 60,
    retry_on_busy: true,
    retry_on_no_answer: true,
    retry_on_voicemail: false,
  },
  schedule_config: null,
  circuit_breaker: { enabled: true, failure_threshold: 0.5, window_seconds: 60, min_calls_in_window: 2 },
  voicemail_action: 'retry_later',
  fallback: null,
  ...change,
});

const opened = (change: Partial<OpenedCampaign> = {}): OpenedCampaign => ({
  state: 'running',
  settings: settings(),
  counters: {
    total_rows: 3,
    total_queued_count: 0,
    executed_count: 0,
    processed_rows: 0,
    failed_rows: 0,
    dnc_skipped: 0,
    frequency_capped: 0,
  },
  outcomes: {},
  failover: { available: false, active: false },
  ...change,
});

const contacts = (...ids: string[]): ContactRef[] => ids.map((contactId) => ({ contactId, timezone: null }));
const NOW = Date.UTC(2026, 0, 5, 12);

/** A running tracker opened with `change`. */
function tracker(change: Partial<OpenedCampaign> = {}, carry?: CampaignCarryOver): CampaignTracker {
  const campaign = new CampaignTracker(7, 'campaign-7', carry);
  campaign.open(opened(change));
  return campaign;
}

/** One dispatch at `now` over `page`, as the workflow runs it; the dials it launched. */
function dispatch(campaign: CampaignTracker, now: number, page: ContactRef[] = []) {
  const taken = campaign.beginDispatch(now);
  let pages = 0;
  while (campaign.takeContacts(taken)) {
    campaign.addPage(pages === 0 ? page : []);
    pages += 1;
  }
  campaign.launch(taken);
  return { ...taken, pages };
}

describe('CampaignTracker', () => {
  it('dials no more than max_concurrency contacts, in id order, fetching a page when it needs one', () => {
    const campaign = tracker();
    const first = dispatch(campaign, NOW, contacts('1', '2', '3'));
    expect(first.batch.map((item) => [item.contactId, item.attempt])).toEqual([
      ['1', 1],
      ['2', 1],
    ]);
    expect(first.pages).toBe(1);
    expect(campaign.inFlightCount).toBe(2);
    expect(campaign.fetchedUpTo).toBe('3');
    // Full: nothing more until a call reports.
    expect(dispatch(campaign, NOW).batch).toEqual([]);
    expect(campaign.allDone(0)).toBe(false);
  });

  it('counts a report once, and only for the dial in flight', () => {
    const campaign = tracker();
    dispatch(campaign, NOW, contacts('1'));
    const report = { parentWorkflowId: 'campaign-7', campaignId: 7, contactId: '1', attempt: 1, runId: 5 } as const;
    campaign.receive({ ...report, outcome: 'completed' });
    campaign.receive({ ...report, outcome: 'completed' });
    campaign.receive({ ...report, attempt: 2, outcome: 'busy' });
    const { batch, records } = campaign.takeReports(NOW);
    expect(records).toEqual([{ contactId: '1', attempt: 1, outcome: 'completed', runId: 5, final: true }]);
    const counters = {
      ...opened().counters,
      total_rows: 1,
      total_queued_count: 1,
      executed_count: 1,
      processed_rows: 1,
    };
    expect(campaign.recorded(batch, records, counters, NOW)).toBeNull();
    expect(campaign.progress()).toMatchObject({ outcomes: { completed: 1 }, in_flight: 0, processed_rows: 1 });
    expect(campaign.allDone(0)).toBe(true);
    expect(campaign.allDone(1)).toBe(false);
  });

  it('queues a retry after the delay for an enabled outcome, and wakes for it once a slot is free', () => {
    const campaign = tracker();
    dispatch(campaign, NOW, contacts('1'));
    campaign.receive({
      parentWorkflowId: 'campaign-7',
      campaignId: 7,
      contactId: '1',
      attempt: 1,
      runId: 5,
      outcome: 'busy',
    });
    const { batch, records } = campaign.takeReports(NOW);
    expect(records[0]).toMatchObject({ final: false, retryAt: NOW + 60_000 });
    campaign.recorded(batch, records, opened().counters, NOW);
    expect(campaign.progress().pending_retries).toBe(1);
    expect(campaign.wakeAt(null)).toBe(NOW + 60_000);
    expect(campaign.wakeSummary(NOW + 60_000, NOW)).toBe('retry busy contact in 1 min');
    expect(dispatch(campaign, NOW + 59_999).batch).toEqual([]);
    expect(dispatch(campaign, NOW + 60_000).batch).toEqual([
      { contactId: '1', attempt: 2, dueAt: NOW + 60_000, timezone: null, cause: 'busy' },
    ]);
  });

  it('makes every outcome of a cancelled campaign final', () => {
    const campaign = tracker();
    dispatch(campaign, NOW, contacts('1'));
    campaign.setState('cancelled');
    campaign.receive({
      parentWorkflowId: 'campaign-7',
      campaignId: 7,
      contactId: '1',
      attempt: 1,
      runId: 5,
      outcome: 'busy',
    });
    expect(campaign.takeReports(NOW).records[0]).toMatchObject({ final: true });
    expect(campaign.closed).toBe(true);
  });

  it('trips the breaker within its window only, while running', () => {
    const campaign = tracker({ settings: settings({ max_concurrency: 3 }) });
    dispatch(campaign, NOW, contacts('1', '2', '3'));
    const report = (contactId: string) =>
      campaign.receive({
        parentWorkflowId: 'campaign-7',
        campaignId: 7,
        contactId,
        attempt: 1,
        runId: 1,
        outcome: 'failed',
      });
    report('1');
    let taken = campaign.takeReports(NOW);
    expect(campaign.recorded(taken.batch, taken.records, opened().counters, NOW)).toBeNull();
    // The first failure left the 60 s window: one call in it, fewer than min_calls_in_window.
    report('2');
    taken = campaign.takeReports(NOW + 61_000);
    expect(campaign.recorded(taken.batch, taken.records, opened().counters, NOW + 61_000)).toBeNull();
    report('3');
    taken = campaign.takeReports(NOW + 62_000);
    expect(campaign.recorded(taken.batch, taken.records, opened().counters, NOW + 62_000)).toMatchObject({
      failure_count: 2,
      call_count: 2,
    });
  });

  it('fails over once: a new window that the calls dialed before the switch do not enter', () => {
    const campaign = tracker({
      settings: settings({ max_concurrency: 4 }),
      failover: { available: true, active: false },
    });
    dispatch(campaign, NOW, contacts('1', '2', '3', '4'));
    const report = (contactId: string) =>
      campaign.receive({
        parentWorkflowId: 'campaign-7',
        campaignId: 7,
        contactId,
        attempt: 1,
        runId: 1,
        outcome: 'error',
      });
    const record = (at: number) => {
      const taken = campaign.takeReports(at);
      return campaign.recorded(taken.batch, taken.records, opened().counters, at);
    };
    report('1');
    report('2');
    expect(campaign.canFailOver).toBe(true);
    expect(record(NOW)).toMatchObject({ failure_count: 2 });
    campaign.failedOver();
    expect(campaign.canFailOver).toBe(false);
    // Dialed before the switch: their failures do not judge the fallback.
    report('3');
    report('4');
    expect(record(NOW + 1_000)).toBeNull();
    expect(campaign.carryOver().breakerSkips ?? []).toEqual([]);
  });

  it('holds contacts until the window opens and announces the opening once', () => {
    // Monday 12:00 UTC; the window opens Tuesday 09:00 UTC.
    const schedule_config = {
      enabled: true,
      timezone: 'UTC',
      slots: [{ day_of_week: 1, start_time: '09:00', end_time: '10:00' }],
    };
    const campaign = tracker({ settings: settings({ schedule_config }) });
    const held = dispatch(campaign, NOW, contacts('1'));
    expect(held.batch).toEqual([]);
    expect(held.heldUntil).toBe(Date.UTC(2026, 0, 6, 9));
    expect(campaign.windowToAnnounce(held.heldUntil)).toBe(Date.UTC(2026, 0, 6, 9));
    expect(campaign.windowToAnnounce(held.heldUntil)).toBeNull();
    expect(campaign.progress().next_open_at).toBe('2026-01-06T09:00:00.000Z');
    expect(campaign.wakeAt(held.heldUntil)).toBe(Date.UTC(2026, 0, 6, 9));
    expect(campaign.wakeSummary(Date.UTC(2026, 0, 6, 9), NOW)).toBe('window opens Tue 09:00 UTC');
  });

  it("names a contact's own window in its own zone", () => {
    const schedule_config = {
      enabled: true,
      timezone: 'UTC',
      slots: [{ day_of_week: 1, start_time: '09:00', end_time: '10:00' }],
    };
    const campaign = tracker({ settings: settings({ schedule_config }) });
    const held = dispatch(campaign, NOW, [{ contactId: '1', timezone: 'America/Chicago' }]);
    expect(campaign.wakeSummary(campaign.wakeAt(held.heldUntil), NOW)).toBe('window opens Tue 09:00 America/Chicago');
  });

  it('puts an unroutable batch back to wait, and fails on the third failure in a row', () => {
    const campaign = tracker();
    const first = dispatch(campaign, NOW, contacts('1'));
    expect(campaign.holdUnroutable(first, NOW)).toEqual({ consecutiveFailures: 1, fails: false });
    expect(campaign.inFlightCount).toBe(0);
    expect(campaign.wakeSummary(NOW + ROUTE_RETRY_MS, NOW)).toBe(
      'no usable telephony route: try contact again in 10 s',
    );
    const second = dispatch(campaign, NOW + ROUTE_RETRY_MS);
    expect(second.batch).toEqual([
      { contactId: '1', attempt: 1, dueAt: NOW + ROUTE_RETRY_MS, timezone: null, cause: 'unroutable' },
    ]);
    expect(campaign.holdUnroutable(second, NOW + ROUTE_RETRY_MS)).toEqual({ consecutiveFailures: 2, fails: false });
    const third = dispatch(campaign, NOW + 2 * ROUTE_RETRY_MS);
    expect(campaign.holdUnroutable(third, NOW + 2 * ROUTE_RETRY_MS)).toEqual({ consecutiveFailures: 3, fails: true });
  });

  it('carries over a cursor and what is in flight or waiting, and takes it up again', () => {
    const campaign = tracker();
    dispatch(campaign, NOW, contacts('1', '2', '3'));
    const carry = campaign.carryOver();
    expect(carry).toEqual({
      contactCursor: '2',
      state: 'running',
      settings: settings(),
      inFlight: [
        { parentWorkflowId: 'campaign-7', campaignId: 7, contactId: '1', attempt: 1, timezone: null },
        { parentWorkflowId: 'campaign-7', campaignId: 7, contactId: '2', attempt: 1, timezone: null },
      ],
      retries: [],
      breakerWindow: [],
      // Contact 3 was fetched but not taken: the next run fetches it again after the cursor.
      sourceExhausted: false,
    });
    const next = tracker({ settings: settings({ max_concurrency: 9 }) }, carry);
    expect(next.fetchedUpTo).toBe('2');
    expect(next.settings.max_concurrency).toBe(2);
    expect(next.inFlightCount).toBe(2);
  });

  it('carries over the same record it took up: failing routes, skipped breaker entries and retries included', () => {
    const carry: CampaignCarryOver = {
      contactCursor: '5',
      state: 'paused',
      settings: settings(),
      inFlight: [
        { parentWorkflowId: 'campaign-7', campaignId: 7, contactId: '4', attempt: 2, timezone: 'Europe/Paris' },
      ],
      retries: [{ contactId: '3', attempt: 2, dueAt: NOW + 60_000, timezone: null, cause: 'busy' }],
      breakerWindow: [{ at: NOW - 1_000, failed: true }],
      sourceExhausted: true,
      routeFailures: 2,
      breakerSkips: ['4/2'],
    };
    const campaign = tracker({ state: 'paused' }, carry);
    expect(campaign.carryOver()).toEqual(carry);
    expect(campaign.inFlightLink('4', 2)).toEqual({
      parentWorkflowId: 'campaign-7',
      campaignId: 7,
      contactId: '4',
      attempt: 2,
    });
    // The report of the dial in flight takes its timezone along, for its retry's window.
    campaign.receive({
      parentWorkflowId: 'campaign-7',
      campaignId: 7,
      contactId: '4',
      attempt: 2,
      runId: 9,
      outcome: 'busy',
    });
    expect(campaign.takeReports(NOW).batch[0]?.timezone).toBe('Europe/Paris');
    expect(campaign.carryOver().inFlight).toEqual([]);
  });

  it('takes an ended state from the database over the carried one', () => {
    const campaign = tracker({ state: 'cancelled' });
    expect(campaign.closed).toBe(true);
  });

  it('stops taking pages at the end of the source', () => {
    const campaign = tracker({ settings: settings({ max_concurrency: PAGE_SIZE + 10 }) });
    expect(dispatch(campaign, NOW, contacts('1')).pages).toBe(1);
    expect(dispatch(campaign, NOW).pages).toBe(0);
  });
});
