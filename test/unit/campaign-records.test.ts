import { closedRetryTally } from '../../domain/campaigns/close-retries';
import { providerFailoverLog } from '../../domain/campaigns/fail-over';
import { failoverOf } from '../../domain/campaigns/open-campaign';
import {
  initiationFailureLogs,
  outcomeCounters,
  retriesOf,
  transferCandidates,
  type AttemptOutcome,
} from '../../domain/campaigns/record-outcomes';
import { terminalStatusOf } from '../../domain/campaigns/run-outcome';
import { configUpdatedLog, rearmsFailover } from '../../domain/campaigns/save-settings';

/** What the campaign workflow's writes decide before they reach the database. */

const outcome = (contactId: string, attempt: number, fields: Partial<AttemptOutcome>): AttemptOutcome => ({
  contactId,
  attempt,
  outcome: 'completed',
  runId: null,
  final: true,
  ...fields,
});

describe('recording attempt outcomes', () => {
  const batch = [
    outcome('1', 1, { outcome: 'completed', runId: 11 }),
    outcome('2', 1, { outcome: 'busy', runId: 12, final: false, retryAt: 1_700_000_000_000 }),
    outcome('3', 2, { outcome: 'no-answer', runId: 13 }),
    outcome('4', 1, { outcome: 'failed', final: true, initiationError: 'carrier said 503' }),
    outcome('5', 1, { outcome: 'voicemail', runId: 15, final: false }),
  ];

  it('counts each final outcome as processed, and failed unless completed', () => {
    expect(outcomeCounters(batch, { queued: 2, transferred: 1 })).toEqual({
      queued: 2,
      processed: 3,
      failed: 2,
      transferred: 1,
    });
    expect(outcomeCounters([], { queued: 0, transferred: 0 })).toEqual({
      queued: 0,
      processed: 0,
      failed: 0,
      transferred: 0,
    });
  });

  it('queues the next attempt of a retried outcome that has a due time, keyed by its call workflow', () => {
    expect(retriesOf(42, batch)).toEqual([
      {
        contactId: '2',
        attempt: 2,
        workflowId: 'campaign-42/contact-2/attempt-2',
        dueMs: 1_700_000_000_000,
      },
    ]);
  });

  it('logs each call that could not be initiated, and nothing else', () => {
    expect(initiationFailureLogs(batch)).toEqual([
      {
        level: 'error',
        event: 'call_initiation_failed',
        message: 'Call to contact 4 (attempt 1) could not be initiated: carrier said 503',
        details: { contact_id: '4', attempt: 1, error: 'carrier said 503' },
      },
    ]);
  });

  it('looks for transfers among final completed calls with a run only', () => {
    expect(transferCandidates(batch)).toEqual([11]);
  });
});

describe('provider failover', () => {
  it("names the configuration taken and the breaker's figures, as percentages with two decimals", () => {
    const figures = { failure_rate: 0.6667, failure_count: 4, call_count: 6, threshold: 0.5, window_seconds: 120 };
    expect(providerFailoverLog(figures, { fromId: 3, toId: 9 })).toEqual({
      level: 'warning',
      event: 'provider_failover',
      message:
        'Switched to the fallback telephony configuration 9: failure rate 66.67% (4/6) exceeded threshold 50.00% in 120s window',
      details: { ...figures, from_telephony_configuration_id: 3, to_telephony_configuration_id: 9 },
    });
  });

  it('reads a missing rate or threshold as 0 %', () => {
    expect(
      providerFailoverLog({ failure_count: 0, call_count: 0, window_seconds: 60 }, { fromId: null, toId: 2 }),
    ).toMatchObject({
      message:
        'Switched to the fallback telephony configuration 2: failure rate 0.00% (0/0) exceeded threshold 0.00% in 60s window',
      details: { from_telephony_configuration_id: null, to_telephony_configuration_id: 2 },
    });
  });

  it('is available with a fallback configuration, and active once the campaign switched to it', () => {
    const at = new Date();
    expect(failoverOf({ fallbackTelephonyConfigurationId: null, failedOverAt: null })).toEqual({
      available: false,
      active: false,
    });
    expect(failoverOf({ fallbackTelephonyConfigurationId: null, failedOverAt: at })).toEqual({
      available: false,
      active: false,
    });
    expect(failoverOf({ fallbackTelephonyConfigurationId: 4, failedOverAt: null })).toEqual({
      available: true,
      active: false,
    });
    expect(failoverOf({ fallbackTelephonyConfigurationId: 4, failedOverAt: at })).toEqual({
      available: true,
      active: true,
    });
  });
});

describe('closing queued retries', () => {
  it("makes each contact's last outcome final: processed, failed unless completed", () => {
    expect(
      closedRetryTally([
        { outcome: 'busy', contacts: 3 },
        { outcome: 'completed', contacts: 1 },
        { outcome: 'voicemail', contacts: 2 },
      ]),
    ).toEqual({ outcomes: { busy: 3, completed: 1, voicemail: 2 }, processed: 6, failed: 5 });
    expect(closedRetryTally([])).toEqual({ outcomes: {}, processed: 0, failed: 0 });
  });
});

describe('settings saved while paused', () => {
  const fallback = (id: number) => ({ fallback: { telephony_configuration_id: id, caller_number: '+14155550199' } });

  it('re-arm the failover when the fallback changes or is taken away, not otherwise', () => {
    expect(rearmsFailover({ max_concurrency: 3 }, 7)).toBe(false);
    expect(rearmsFailover(fallback(7), 7)).toBe(false);
    expect(rearmsFailover(fallback(8), 7)).toBe(true);
    expect(rearmsFailover(fallback(8), null)).toBe(true);
    expect(rearmsFailover({ fallback: null }, 7)).toBe(true);
    expect(rearmsFailover({ fallback: null }, null)).toBe(false);
  });

  it('log config_updated with the names and values changed', () => {
    expect(configUpdatedLog({ max_concurrency: 3, ...fallback(8) })).toEqual({
      level: 'info',
      event: 'config_updated',
      message: 'Campaign settings updated: max_concurrency, fallback',
      details: { max_concurrency: 3, fallback: { telephony_configuration_id: 8, caller_number: '+14155550199' } },
    });
  });
});

describe("a campaign call's outcome", () => {
  it("is the run's call status once completed, error without one, and null before", () => {
    expect(terminalStatusOf(null)).toBeNull();
    expect(terminalStatusOf({ isCompleted: false, gatheredContext: { call_status: 'busy' } })).toBeNull();
    expect(terminalStatusOf({ isCompleted: true, gatheredContext: { call_status: 'busy' } })).toBe('busy');
    expect(terminalStatusOf({ isCompleted: true, gatheredContext: {} })).toBe('error');
  });
});
