import { runningReasons, waitGroups } from '../../domain/campaigns/not-dialing-reasons';
import type { CampaignProgress } from '../../workflows/definitions';
import { campaignDetails } from '../../workflows/campaign/ui-metadata';

const progress = (change: Partial<CampaignProgress> = {}): CampaignProgress => ({
  campaignId: 1,
  state: 'running',
  total_rows: 10,
  total_queued_count: 4,
  executed_count: 4,
  processed_rows: 2,
  failed_rows: 0,
  dnc_skipped: 0,
  frequency_capped: 3,
  transferred: 0,
  in_flight: 0,
  pending_retries: 0,
  outcomes: {},
  next_open_at: null,
  ...change,
});

const at = (iso: string) => Date.parse(iso);

describe("a running campaign's reasons for not dialing", () => {
  it('groups waiting dials by cause, earliest first', () => {
    expect(
      waitGroups([
        { cause: 'busy', dueAt: at('2026-03-02T10:05:00Z') },
        { cause: 'frequency_capped', dueAt: at('2026-03-02T11:00:00Z') },
        { cause: 'busy', dueAt: at('2026-03-02T10:01:00Z') },
        { cause: 'frequency_capped', dueAt: at('2026-03-02T10:30:00Z') },
      ]),
    ).toEqual([
      { cause: 'busy', count: 2, next_due_at: '2026-03-02T10:01:00.000Z' },
      { cause: 'frequency_capped', count: 2, next_due_at: '2026-03-02T10:30:00.000Z' },
    ]);
  });

  it('names the concurrency limit, frequency caps, a missing route and retries not yet due', () => {
    const reasons = runningReasons({
      ...progress({ in_flight: 5 }),
      max_concurrency: 5,
      waiting: [
        { cause: 'frequency_capped', count: 3, next_due_at: '2026-03-02T10:30:00.000Z' },
        { cause: 'unroutable', count: 1, next_due_at: '2026-03-02T10:00:10.000Z' },
        { cause: 'no-answer', count: 2, next_due_at: '2026-03-02T10:40:00.000Z' },
      ],
    });
    expect(reasons.map((reason) => [reason.reason, reason.count, reason.until])).toEqual([
      ['at_concurrency_limit', 5, null],
      ['frequency_capped', 3, '2026-03-02T10:30:00.000Z'],
      ['no_telephony_route', 1, '2026-03-02T10:00:10.000Z'],
      ['waiting_for_retries', 2, '2026-03-02T10:40:00.000Z'],
    ]);
    expect(reasons[1]?.message).toBe(
      '3 contacts held by frequency caps; the first may be dialed at 2026-03-02T10:30:00.000Z',
    );
    expect(reasons[3]?.details).toEqual({ outcome: 'no-answer' });
  });

  it('is empty while it dials, and the Temporal UI details carry each reason', () => {
    expect(runningReasons({ ...progress({ in_flight: 2 }), max_concurrency: 5, waiting: [] })).toEqual([]);
    const details = campaignDetails({ ...progress({ next_open_at: '2026-03-03T14:00:00.000Z' }), waiting: [] });
    expect(details).toContain('Not dialing: Outside its calling window until 2026-03-03T14:00:00.000Z');
    expect(
      campaignDetails({ ...progress({ state: 'paused', next_open_at: '2026-03-03T14:00:00.000Z' }) }),
    ).not.toContain('Not dialing');
  });
});
