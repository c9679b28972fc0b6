import type { ContactRef, OpenedCampaign } from '../../activities/campaign.activities';
import { AnalysisTally, TALLY_TAGS } from '../../workflows/campaign/analysis-tally';
import { CampaignTracker } from '../../workflows/campaign/tracker';
import { analysisLine, campaignDetails } from '../../workflows/campaign/ui-metadata';
import type { CampaignCallAnalysis } from '../../workflows/definitions';

const opened: OpenedCampaign = {
  state: 'running',
  settings: {
    name: 'Analysed',
    max_concurrency: 3,
    retry_config: {
      enabled: false,
      max_retries: 0,
      retry_delay_seconds: 60,
      retry_on_busy: false,
      retry_on_no_answer: false,
      retry_on_voicemail: false,
    },
    schedule_config: null,
    circuit_breaker: { enabled: false, failure_threshold: 0.5, window_seconds: 60, min_calls_in_window: 2 },
    voicemail_action: 'retry_later',
    fallback: null,
  },
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
};

const contacts = (...ids: string[]): ContactRef[] => ids.map((contactId) => ({ contactId, timezone: null }));

/** A tracker that dialed contacts a, b and c (runs 1, 2, 3). */
function dialing(): CampaignTracker {
  const tracker = new CampaignTracker(9, 'campaign-9');
  tracker.open(opened);
  const dispatch = tracker.beginDispatch(0);
  while (tracker.takeContacts(dispatch)) tracker.addPage(contacts('a', 'b', 'c'));
  tracker.launch(dispatch);
  return tracker;
}

const link = (contactId: string) => ({ parentWorkflowId: 'campaign-9', campaignId: 9, contactId, attempt: 1 });
const analysed = (runId: number, summary: CampaignCallAnalysis['summary']): CampaignCallAnalysis => ({
  runId,
  summary,
});

describe("a campaign's tally of its calls' analyses", () => {
  it('counts each analysis a report announced, once, and carries the sum and the runs expected over', () => {
    const tracker = dialing();
    tracker.receive({ ...link('a'), runId: 1, outcome: 'completed', analysisFollows: true });
    tracker.receive({ ...link('b'), runId: 2, outcome: 'completed', analysisFollows: true });
    tracker.receive({ ...link('c'), runId: 3, outcome: 'completed' });
    expect(tracker.awaitingAnalysisCount).toBe(2);

    const first = analysed(1, { successful: true, sentiment: 'positive', tags: ['interested', 'callback'] });
    expect(tracker.analysed(first)).toBe(true);
    // A repeat (a replayed or retried signal) and an analysis never announced change nothing.
    expect(tracker.analysed(first)).toBe(false);
    expect(tracker.analysed(analysed(3, { successful: false, sentiment: 'negative', tags: ['x'] }))).toBe(false);
    // A repeated outcome report does not announce the analysis again.
    tracker.receive({ ...link('a'), runId: 1, outcome: 'completed', analysisFollows: true });
    expect(tracker.awaitingAnalysisCount).toBe(1);

    const carry = tracker.carryOver();
    expect(carry.awaitingAnalysis).toEqual([2]);
    const next = new CampaignTracker(9, 'campaign-9', carry);
    next.open(opened);
    expect(next.analysed(analysed(2, { successful: null, sentiment: 'neutral', tags: ['interested'] }))).toBe(true);
    expect(next.analysis).toEqual({
      analysed: 2,
      evaluated: 1,
      successful: 1,
      sentiment: { positive: 1, neutral: 1, negative: 0 },
      tags: { interested: 2, callback: 1 },
    });
    expect(next.awaitingAnalysisCount).toBe(0);
    expect(next.carryOver()).not.toHaveProperty('awaitingAnalysis');
  });

  it('stops expecting an analysis that could not be done, without counting it', () => {
    const tracker = dialing();
    tracker.receive({ ...link('a'), runId: 1, outcome: 'completed', analysisFollows: true });
    expect(tracker.analysed(analysed(1, null))).toBe(false);
    expect(tracker.awaitingAnalysisCount).toBe(0);
    expect(tracker.analysis.analysed).toBe(0);
    expect(tracker.carryOver()).not.toHaveProperty('analysis');
  });

  it('reads a carry-over from before analyses were summed', () => {
    const { analysis, awaitingAnalysis, ...older } = dialing().carryOver();
    expect(analysis).toBeUndefined();
    expect(awaitingAnalysis).toBeUndefined();
    const tracker = new CampaignTracker(9, 'campaign-9', older);
    expect(tracker.analysis.analysed).toBe(0);
    expect(tracker.awaitingAnalysisCount).toBe(0);
  });

  it('keeps counting only the most frequent tags', () => {
    const tally = new AnalysisTally();
    for (let runId = 1; runId <= TALLY_TAGS + 20; runId += 1) {
      tally.expect(runId);
      tally.add(analysed(runId, { successful: true, sentiment: 'positive', tags: ['common', `rare-${runId}`] }));
    }
    expect(Object.keys(tally.figures.tags)).toHaveLength(TALLY_TAGS);
    expect(tally.figures.tags.common).toBe(TALLY_TAGS + 20);
  });

  it('shows the success rate, the sentiment split and the top tags in the details', () => {
    const tracker = dialing();
    const summaries: CampaignCallAnalysis['summary'][] = [
      { successful: true, sentiment: 'positive', tags: ['interested', 'callback'] },
      { successful: true, sentiment: 'neutral', tags: ['interested'] },
      { successful: false, sentiment: 'negative', tags: ['not-interested'] },
    ];
    summaries.forEach((summary, index) => {
      tracker.receive({
        ...link('abc'[index] as string),
        runId: index + 1,
        outcome: 'completed',
        analysisFollows: true,
      });
      tracker.analysed(analysed(index + 1, summary));
    });
    const line =
      'Analysed 3 · success 67% · sentiment +1 / =1 / −1 · top tags: interested (2), callback (1), not-interested (1)';
    expect(analysisLine(tracker.analysis)).toBe(line);
    expect(campaignDetails(tracker.dialingState(), undefined, tracker.analysis)).toContain(line);
    expect(campaignDetails(tracker.dialingState())).not.toContain('Analysed');
  });
});
