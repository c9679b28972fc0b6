import { metricMeter } from '@temporalio/activity';

/**
 * The service's own worker metrics, emitted through the Temporal SDK's meter: they appear on the
 * worker's Prometheus endpoint (WORKER_METRICS_PORT) beside the SDK's, with its activity tags.
 * The names here are the ones deploy/grafana/switchboard.json queries.
 */
export const WORKER_METRIC_NAMES = {
  callsEnded: 'switchboard_calls_ended',
  campaignDials: 'switchboard_campaign_dials',
} as const;

/** One call ended with `callStatus` (a retried conclusion may count it again: a rate, not a ledger). */
export function countCallEnded(callStatus: string): void {
  metricMeter
    .createCounter(WORKER_METRIC_NAMES.callsEnded, 'calls', 'Calls ended, by call status')
    .add(1, { call_status: callStatus });
}

/** A campaign prepared `count` new dials. */
export function countCampaignDials(count: number): void {
  if (count <= 0) return;
  metricMeter.createCounter(WORKER_METRIC_NAMES.campaignDials, 'dials', 'Campaign dials prepared').add(count);
}
