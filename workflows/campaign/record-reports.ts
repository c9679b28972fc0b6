import { summarizedActivities } from './activities';
import type { CampaignRun } from './run';

const percent = (value: number) => `${(value * 100).toFixed(2)}%`;

/**
 * Records what the children reported: retries are queued, final outcomes counted, the breaker fed.
 * A trip switches to the fallback configuration when the campaign has one left; otherwise it pauses.
 */
export async function recordReports({ tracker, writes, campaignId }: CampaignRun): Promise<void> {
  if (!tracker.hasReports) return;
  const now = Date.now();
  const { batch, records } = tracker.takeReports(now);
  const tally = new Map<string, number>();
  for (const record of records) tally.set(record.outcome, (tally.get(record.outcome) ?? 0) + 1);
  const said = [...tally].map(([outcome, count]) => `${count} ${outcome}`).join(', ');
  const { recordCampaignOutcomes } = summarizedActivities(`record outcomes: ${said}`);
  const counters = await recordCampaignOutcomes({ campaignId, outcomes: records });
  const trip = tracker.recorded(batch, records, counters, now);
  if (!trip) return;
  if (tracker.canFailOver) {
    await summarizedActivities('switch to the fallback telephony configuration').failOverCampaign({
      campaignId,
      figures: { ...trip },
    });
    tracker.failedOver();
    return;
  }
  await writes.transition(['running'], 'paused', {
    level: 'warning',
    event: 'circuit_breaker_tripped',
    message:
      `Paused: failure rate ${percent(trip.failure_rate)} (${trip.failure_count}/${trip.call_count}) exceeded ` +
      `threshold ${percent(trip.threshold)} in ${trip.window_seconds}s window`,
    details: { ...trip },
  });
}
