import type { CampaignAnalysisTally, CampaignCallAnalysis } from '../definitions';

/** Tags the tally keeps counting; rarer ones are dropped when it grows past this. */
export const TALLY_TAGS = 50;
/** Runs whose analysis the campaign expects at most (a call that never reports is forgotten first). */
const MAX_AWAITING = 1_000;

export const emptyTally = (): CampaignAnalysisTally => ({
  analysed: 0,
  evaluated: 0,
  successful: 0,
  sentiment: { positive: 0, neutral: 0, negative: 0 },
  tags: {},
});

/**
 * The campaign's running sum of its calls' analyses, with no Temporal calls in it. A call says its
 * analysis follows when it reports its outcome; only an expected analysis is counted, once, so a
 * repeated signal changes nothing. Both the sum and the runs expected are carried over.
 */
export class AnalysisTally {
  private readonly tally: CampaignAnalysisTally;
  private readonly awaiting: number[];

  constructor(carried?: CampaignAnalysisTally, awaiting?: number[]) {
    const start = carried ?? emptyTally();
    this.tally = { ...start, sentiment: { ...start.sentiment }, tags: { ...start.tags } };
    this.awaiting = [...(awaiting ?? [])];
  }

  /** The analyses heard of so far. */
  get figures(): CampaignAnalysisTally {
    return this.tally;
  }

  get awaitingRuns(): number[] {
    return this.awaiting;
  }

  /** A call's report said its analysis follows. */
  expect(runId: number): void {
    if (this.awaiting.includes(runId)) return;
    this.awaiting.push(runId);
    if (this.awaiting.length > MAX_AWAITING) this.awaiting.shift();
  }

  /** A call's analysis; false when it was not expected (a repeat, or never announced). */
  add({ runId, summary }: CampaignCallAnalysis): boolean {
    const index = this.awaiting.indexOf(runId);
    if (index === -1) return false;
    this.awaiting.splice(index, 1);
    if (!summary) return false;
    const { tally } = this;
    tally.analysed += 1;
    if (summary.successful !== null) {
      tally.evaluated += 1;
      if (summary.successful) tally.successful += 1;
    }
    if (summary.sentiment) tally.sentiment[summary.sentiment] += 1;
    for (const tag of new Set(summary.tags)) tally.tags[tag] = (tally.tags[tag] ?? 0) + 1;
    const kept = topTags(tally.tags, TALLY_TAGS);
    if (kept.length < Object.keys(tally.tags).length) {
      tally.tags = Object.fromEntries(kept);
    }
    return true;
  }
}

/** The most frequent tags, most frequent first (ties by name). */
export function topTags(tags: Record<string, number>, limit: number): [string, number][] {
  return Object.entries(tags)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .slice(0, limit);
}
