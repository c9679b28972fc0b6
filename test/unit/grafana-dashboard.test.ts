import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKER_METRIC_NAMES } from '../../activities/call-metrics';
import { createMetrics } from '../../api/metrics';
import { TEMPORAL_SDK_METRICS } from '../../deploy/grafana/temporal-sdk-metrics';

/** Every metric deploy/grafana/switchboard.json queries is one the API or the worker exports. */

interface Panel {
  title: string;
  type: string;
  targets?: { expr: string }[];
}

const dashboard = JSON.parse(
  readFileSync(join(__dirname, '..', '..', 'deploy', 'grafana', 'switchboard.json'), 'utf8'),
) as { panels: Panel[] };

const PROMQL_WORDS = new Set([
  'sum',
  'rate',
  'by',
  'without',
  'histogram_quantile',
  'le',
  'irate',
  'increase',
  'avg',
  'max',
  'min',
]);

/** The metric names of a PromQL expression: identifiers not inside `{}`, `()` label lists or strings. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"[^"]*"/g, '')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without)\s*\([^)]*\)/g, '');
  return (bare.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? []).filter((word) => !PROMQL_WORDS.has(word));
}

/** A histogram's series are `<name>_bucket`, `_sum` and `_count`. */
const family = (name: string): string => name.replace(/_(bucket|sum|count)$/, '');

it('queries only metrics the API or the worker exports', async () => {
  const api = await createMetrics().registry.getMetricsAsJSON();
  const exported = new Set<string>([
    ...api.map((metric) => metric.name),
    ...Object.values(WORKER_METRIC_NAMES),
    ...TEMPORAL_SDK_METRICS,
  ]);
  const queried = dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).flatMap((target) => metricNames(target.expr).map((name) => ({ panel: panel.title, name }))),
  );
  expect(queried.length).toBeGreaterThan(10);
  expect(queried.filter(({ name }) => !exported.has(family(name)) && !exported.has(name))).toEqual([]);
});

it('covers requests by route, calls by outcome, campaign dials, activity failures and workflow task latency', () => {
  const exprs = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)).join('\n');
  for (const name of [
    'http_request_duration_seconds_count',
    'http_request_duration_seconds_bucket',
    WORKER_METRIC_NAMES.callsEnded,
    WORKER_METRIC_NAMES.campaignDials,
    'temporal_activity_execution_failed',
    'temporal_workflow_task_execution_latency_bucket',
  ]) {
    expect(exprs).toContain(name);
  }
});

it('reads the names the parser is given', () => {
  expect(metricNames('histogram_quantile(0.95, sum by (le, route) (rate(a_b_bucket{status=~"5.."}[5m])))')).toEqual([
    'a_b_bucket',
  ]);
});
