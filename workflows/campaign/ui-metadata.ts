import { DateTime } from 'luxon';
import type { PreparedAttempt } from '../../activities/campaign.activities';
import type { CampaignAnalysisTally, CampaignProgress, WaitCause } from '../definitions';
import { topTags } from './analysis-tally';
import { spokenDuration } from '../spoken-duration';
import { runningReasons } from '../../domain/campaigns/not-dialing-reasons';

/**
 * What the Temporal UI shows of a campaign and its calls without opening any JSON: the list shows
 * a call's summary, a workflow's page its details (Markdown).
 */

const count = (value: number): string => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** Tags the details name. */
const DETAILS_TAGS = 5;

/**
 * The campaign's current details: state, progress, outcomes, its calls' analyses, the next window
 * and what it waits for.
 */
export function campaignDetails(
  progress: CampaignProgress,
  waitingFor?: string,
  analysis?: CampaignAnalysisTally,
): string {
  const outcomes = Object.entries(progress.outcomes)
    .filter(([, n]) => (n ?? 0) > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status} ${count(n ?? 0)}`);
  return [
    `**${progress.state}** · ${count(progress.processed_rows)} of ${count(progress.total_rows)} contacts done` +
      ` · ${count(progress.executed_count)} calls placed`,
    `In flight ${count(progress.in_flight)} · retries waiting ${count(progress.pending_retries)}` +
      ` · failed ${count(progress.failed_rows)} · transferred ${count(progress.transferred)}`,
    `Outcomes: ${outcomes.length > 0 ? outcomes.join(', ') : 'none yet'}`,
    ...(analysis && analysis.analysed > 0 ? [analysisLine(analysis)] : []),
    ...(progress.next_open_at ? [`Next calling window opens ${progress.next_open_at}`] : []),
    ...(waitingFor ? [`Waiting: ${waitingFor}`] : []),
    ...(progress.state === 'running' ? runningReasons(progress).map(({ message }) => `Not dialing: ${message}`) : []),
  ].join('\n\n');
}

/** "analysed 46 · success 72% · sentiment +12 / =30 / −4 · top tags: a (5), b (3)" */
export function analysisLine(analysis: CampaignAnalysisTally): string {
  const { positive, neutral, negative } = analysis.sentiment;
  const success =
    analysis.evaluated > 0 ? `${Math.round((analysis.successful / analysis.evaluated) * 100)}%` : 'not evaluated';
  const tags = topTags(analysis.tags, DETAILS_TAGS).map(([tag, calls]) => `${tag} (${count(calls)})`);
  return (
    `Analysed ${count(analysis.analysed)} · success ${success}` +
    ` · sentiment +${count(positive)} / =${count(neutral)} / −${count(negative)}` +
    ` · top tags: ${tags.length > 0 ? tags.join(', ') : 'none'}`
  );
}

/**
 * A campaign call's summary and details, set when it starts: the number masked (the activity that
 * prepares the dial masks it), its contact and data row, its attempt and its campaign. The mask is
 * a code span, so its `*` are not read as Markdown emphasis.
 */
export function callSummary(
  campaignId: number,
  dial: PreparedAttempt & { ok: true },
): { staticSummary: string; staticDetails: string } {
  const number = `\`${dial.maskedNumber}\``;
  return {
    staticSummary: `Campaign ${campaignId} · ${number} · contact ${dial.contactId} (row ${dial.contactRow}) · attempt ${dial.attempt}`,
    staticDetails: [
      `Campaign **${campaignId}** calls ${number}: contact **${dial.contactId}** (row ${dial.contactRow} of its list), attempt **${dial.attempt}**`,
      `Run ${dial.runId} via ${dial.provider} · at most ${dial.maxDurationSeconds} s · ${dial.conversation} conversation`,
    ].join('\n\n'),
  };
}

/**
 * The summary of the campaign's timer: "retry busy contact in 10 min", "window opens Mon 09:00
 * America/Chicago", "no usable telephony route: try 3 contacts again in 10 s".
 */
export function timerSummary(
  wait: { cause: WaitCause; dueAt: number; zone: string | null; count: number },
  now: number,
): string {
  const { cause, dueAt, count } = wait;
  const contacts = count === 1 ? 'contact' : `${count} contacts`;
  const after = spokenDuration(dueAt - now);
  if (cause === 'window') {
    const zone = wait.zone ?? 'UTC';
    return `window opens ${DateTime.fromMillis(dueAt, { zone }).toFormat('ccc HH:mm')} ${zone}`;
  }
  if (cause === 'frequency_capped') return `frequency cap: dial ${contacts} again in ${after}`;
  if (cause === 'unroutable') return `no usable telephony route: try ${contacts} again in ${after}`;
  return `retry ${cause} ${contacts} in ${after}`;
}
