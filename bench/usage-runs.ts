import { loadavg } from 'node:os';
import { Client } from 'pg';
import { TOP_TAGS } from '../domain/campaigns/campaign-analysis';
import { usageRunsWhere } from '../domain/runs/run-queries';
import { CAMPAIGN_ANALYSIS_SQL } from '../entities/repositories/campaign.repository';
import { offlineAnalysisCpuMs } from './analysis-cost';
import { createApiKey, migrate, postJson, say, startApi, startDatabase, type RunningApi } from './helpers';

/**
 * `npm run bench:usage`: latency of `GET /api/v1/organizations/usage/runs` with a `calledNumber`
 * filter, then with each post-call analysis filter, and a date range, over 1,000,000 runs of one
 * organization, through the real API (see bench/helpers.ts); of `GET /api/v1/campaign/{id}`, whose
 * analysis report reads a 100,000-call campaign's analysed runs; and the offline analyzer's CPU
 * time per call. Baseline of the same run: the same SQL statements the routes send, timed directly
 * in PostgreSQL with index and bitmap scans turned off (a plain table scan); for the analyzer, the
 * CPU a whole call costs (docs/BENCHMARKS.md, `bench:calls`).
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 1_000_000);
const AGENTS = 5;
const WARMUP_REQUESTS = 5;
const REQUESTS = 50;
/** Requests per analysis filter, and per campaign report. */
const ANALYSIS_REQUESTS = 20;
const BASELINE_REPETITIONS = 5;
/** Every tenth run belongs to one campaign (100,000 calls at 1,000,000 runs). */
const CAMPAIGN_EVERY = 10;
/** Calls analysed offline to time the analyzer, and their length in exchanges. */
const ANALYZED_CALLS = 5_000;
const ANALYZED_TURNS = 12;
const TARGET_MEDIAN_MS = 200;
/** Digits of an existing called number searched for. */
const SEARCH_DIGITS = [4, 7];

/**
 * One statement, seeded: a year of runs; 40 area codes and 7 random digits for called numbers;
 * 20 organization numbers as callers; dispositions weighted as in a typical outbound campaign, with
 * no duration for calls that never connected; tokens grow with the duration. Four in five connected
 * calls carry a post-call analysis as the offline analyzer writes it: sentiment, a pass/fail
 * success, a score, typed fields and tags of varied frequency (`asked_to_stop` is the rare one).
 * Every tenth run is the campaign's (`$2`).
 */
const INSERT_RUNS = `
  WITH agent_list AS (
    SELECT min(organization_id) AS organization_id, array_agg(id ORDER BY id) AS ids,
           array_agg(current_definition_id ORDER BY id) AS definitions, count(*)::int AS n
      FROM agents)
  INSERT INTO runs (organization_id, workflow_id, definition_id, name, mode, call_type, state, is_completed,
                    call_duration_seconds, platform_token_usage, created_at, initial_context, gathered_context,
                    campaign_id, annotations)
  SELECT l.organization_id, l.ids[1 + g % l.n], l.definitions[1 + g % l.n], 'run-' || g, 'twilio',
         CASE WHEN r.kind < 0.1 THEN 'inbound' ELSE 'outbound' END, 'completed', true,
         d.seconds, d.seconds * (20 + floor(r.tokens * 30)),
         now() - r.age * interval '365 days',
         jsonb_build_object(
           'caller_number', '+1202555' || lpad((floor(r.caller * 20))::int::text, 4, '0'),
           'called_number', '+1' || (200 + floor(r.area * 40))::int || lpad((floor(r.digits * 1e7))::int::text, 7, '0')),
         jsonb_build_object('mapped_call_disposition', d.code),
         CASE WHEN g % ${CAMPAIGN_EVERY} = 0 THEN $2::int END,
         CASE WHEN d.seconds = 0 OR a.sampled >= 0.8 THEN '{}'::jsonb ELSE jsonb_build_object(
           'tags', to_jsonb(array_remove(ARRAY[
             CASE WHEN a.successful THEN 'appointment_confirmed' END,
             CASE WHEN a.tag1 < 0.08 THEN 'dead_air' END,
             CASE WHEN a.tag2 < 0.06 THEN 'agent_repeated_itself' END,
             CASE WHEN a.tag3 < 0.02 THEN 'asked_to_stop' END], NULL)),
           'analysis', jsonb_build_object(
             'fields', jsonb_build_object(
               'call_successful', jsonb_build_object('type', 'boolean', 'value', a.successful),
               'user_sentiment', jsonb_build_object('type', 'enum', 'value', a.sentiment),
               'budget', jsonb_build_object('type', 'number', 'value', 100 * (1 + floor(a.budget * 100)))),
             'success', jsonb_build_object('rubric', 'pass_fail', 'value', a.successful, 'successful', a.successful,
                                           'reason', 'Judged from the call''s signals'),
             'score', a.score, 'sentiment', a.sentiment, 'model', 'offline')) END
    FROM agent_list AS l
    CROSS JOIN generate_series(1, $1::int) AS g
    CROSS JOIN LATERAL (SELECT random() AS age, random() AS kind, random() AS tokens, random() AS caller,
                               random() AS area, random() AS digits, random() AS outcome, random() AS length,
                               g AS seed) AS r
    CROSS JOIN LATERAL (
      SELECT CASE WHEN r.outcome < 0.35 THEN 'user_hangup' WHEN r.outcome < 0.55 THEN 'no-answer'
                  WHEN r.outcome < 0.65 THEN 'busy' WHEN r.outcome < 0.80 THEN 'voicemail'
                  WHEN r.outcome < 0.90 THEN 'user_qualified' WHEN r.outcome < 0.95 THEN 'XFER' ELSE 'failed' END AS code,
             CASE WHEN r.outcome BETWEEN 0.35 AND 0.65 OR r.outcome >= 0.95 THEN 0
                  ELSE 5 + floor(-ln(1 - r.length) * 90)::int END AS seconds) AS d
    CROSS JOIN LATERAL (
      SELECT s.sampled, s.mood < 0.55 AS successful, s.tag1, s.tag2, s.tag3, s.budget,
             CASE WHEN s.mood < 0.45 THEN 'positive' WHEN s.mood < 0.85 THEN 'neutral' ELSE 'negative' END AS sentiment,
             least(10, 1 + floor((1 - s.mood) * 10))::int AS score
        FROM (SELECT random() AS sampled, random() AS mood, random() AS tag1, random() AS tag2, random() AS tag3,
                     random() AS budget, g AS seed) AS s) AS a`;

/** The campaign every tenth run belongs to, in the state it has once done (its report needs no Temporal). */
const INSERT_CAMPAIGN = `
  WITH org AS (SELECT min(organization_id) AS id, min(id) AS agent_id FROM agents),
       source AS (INSERT INTO campaign_sources (id, organization_id, file_name, total_rows, columns)
                  SELECT 'src_bench', id, 'contacts.csv', 0, '[]' FROM org RETURNING organization_id)
  INSERT INTO campaigns (organization_id, name, workflow_id, source_id, retry_config, circuit_breaker, state)
  SELECT source.organization_id, 'Bench campaign', org.agent_id, 'src_bench', '{}', '{}', 'completed'
    FROM source, org RETURNING id`;

const median = (values: number[]) => percentile(values, 50);
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function timeRequests(url: string, apiKey: string, count: number): Promise<{ times: number[]; body: unknown }> {
  const times: number[] = [];
  let body: unknown;
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    const res = await fetch(url, { headers: { 'X-API-Key': apiKey } });
    body = await res.json();
    times.push(performance.now() - started);
    if (!res.ok) throw new Error(`usage answered ${res.status}: ${JSON.stringify(body)}`);
  }
  return { times, body };
}

/** The usage route's two statements, with its own conditions (see entities/repositories/run-listing.repository.ts). */
function routeStatements(organizationId: number, query: { start_date: string; end_date: string; filters: string }) {
  const where = usageRunsWhere(organizationId, query);
  return {
    totals: {
      sql: `SELECT count(*)::int AS total, coalesce(sum(r.platform_token_usage), 0)::float8 AS tokens,
                   coalesce(sum(r.call_duration_seconds), 0)::float8 AS seconds,
                   coalesce(sum((r.usage_info -> 'tool_calls' ->> 'total')::int), 0)::int AS tool_calls
              FROM runs r WHERE ${where.sql}`,
      params: where.params,
    },
    page: {
      sql: `SELECT r.*, a.name AS workflow_name FROM runs r JOIN agents a ON a.id = r.workflow_id WHERE ${where.sql}
             ORDER BY r.created_at DESC, r.id DESC LIMIT 50 OFFSET 0`,
      params: where.params,
    },
  };
}

type Statement = { sql: string; params: unknown[] };

async function timeSql(client: Client, statements: Statement[], count: number) {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    for (const statement of statements) await client.query(statement.sql, statement.params);
    times.push(performance.now() - started);
  }
  return times;
}

/** The statements as planned, and as a table scan (index and bitmap scans off). */
async function baselines(client: Client, statements: Statement[]) {
  const indexed = await timeSql(client, statements, BASELINE_REPETITIONS);
  await client.query('SET enable_indexscan = off');
  await client.query('SET enable_bitmapscan = off');
  const scanned = await timeSql(client, statements, BASELINE_REPETITIONS);
  await client.query('RESET ALL');
  return { indexed, scanned };
}

async function plan(client: Client, statement: Statement): Promise<string> {
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(
    `EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`,
    statement.params,
  );
  return rows.map((row) => row['QUERY PLAN']).join('\n    ');
}

/** The post-call analysis filters timed, each with the last 90 days. */
const ANALYSIS_FILTERS: { label: string; filter: object }[] = [
  {
    label: 'tag asked_to_stop (rare)',
    filter: { attribute: 'analysisTags', type: 'multiSelect', value: { tags: ['asked_to_stop'] } },
  },
  {
    label: 'tag appointment_confirmed (common)',
    filter: { attribute: 'analysisTags', type: 'multiSelect', value: { tags: ['appointment_confirmed'] } },
  },
  {
    label: 'sentiment negative',
    filter: { attribute: 'analysisSentiment', type: 'multiSelect', value: { sentiments: ['negative'] } },
  },
  { label: 'success false', filter: { attribute: 'analysisSuccess', type: 'radio', value: { successful: false } } },
  { label: 'score 9 to 10', filter: { attribute: 'analysisScore', type: 'numberRange', value: { min: 9, max: 10 } } },
  {
    label: 'field user_sentiment = negative',
    filter: {
      attribute: 'analysisField',
      type: 'analysisField',
      value: { name: 'user_sentiment', equals: 'negative' },
    },
  },
  {
    label: 'field budget 9,500 to 10,000',
    filter: { attribute: 'analysisField', type: 'analysisField', value: { name: 'budget', min: 9500, max: 10000 } },
  },
];

/** The campaign report's statement, as GET /campaign/{id} sends it. */
const campaignReportStatement = (campaignId: number): Statement => ({
  sql: CAMPAIGN_ANALYSIS_SQL,
  params: [campaignId, TOP_TAGS],
});

function report(times: number[], indexed: number[], scanned: number[], requests: number): void {
  console.log(`  API, ${requests} requests:           median ${ms(median(times))}   p95 ${ms(percentile(times, 95))}`);
  console.log(`  SQL with indexes (${BASELINE_REPETITIONS}×):       median ${ms(median(indexed))}`);
  console.log(`  SQL, plain table scan (${BASELINE_REPETITIONS}×):  median ${ms(median(scanned))}`);
}

async function main(): Promise<void> {
  const database = await startDatabase();
  let api: RunningApi | undefined;
  const sql = new Client({ connectionString: database.url });
  try {
    await migrate(database.url);
    api = await startApi(database.url);
    const apiKey = await createApiKey(api.base);
    for (let i = 1; i <= AGENTS; i += 1) {
      await postJson(
        `${api.base}/api/v1/workflow/create/template`,
        { use_case: `Campaign ${i}`, activity_description: 'Remind the customer of the appointment.' },
        { 'X-API-Key': apiKey },
      );
    }
    await sql.connect();
    const campaign = await sql.query<{ id: number }>(INSERT_CAMPAIGN);
    const campaignId = campaign.rows[0]!.id;
    let started = performance.now();
    await sql.query('SELECT setseed(0.42)');
    await sql.query(INSERT_RUNS, [RUNS, campaignId]);
    say(`inserted ${RUNS.toLocaleString('en')} runs in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    started = performance.now();
    await sql.query('VACUUM ANALYZE runs');
    say(`VACUUM ANALYZE in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const load = loadavg()
      .map((value) => value.toFixed(1))
      .join(' ');
    say(`load average (1, 5, 15 min): ${load}`);

    // Realistic searches: the last 4 digits (many matches) and the last 7 of an existing number, 90 days.
    const { rows } = await sql.query<{ organization_id: number; called_number: string }>(
      `SELECT organization_id, called_number FROM runs WHERE created_at > now() - interval '30 days' ORDER BY id LIMIT 1`,
    );
    const { organization_id: organizationId, called_number: calledNumber } = rows[0]!;
    const to = new Date().toISOString();
    const from = new Date(Date.now() - 90 * 86_400_000).toISOString();
    const cases = [
      ...SEARCH_DIGITS.map((digits) => ({
        label: `calledNumber contains "${calledNumber.slice(-digits)}"`,
        filter: { attribute: 'calledNumber', type: 'text', value: { value: calledNumber.slice(-digits) } },
        requests: REQUESTS,
      })),
      ...ANALYSIS_FILTERS.map((item) => ({ ...item, requests: ANALYSIS_REQUESTS })),
    ];
    let met = true;
    for (const { label, filter, requests } of cases) {
      const query = { start_date: from, end_date: to, filters: JSON.stringify([filter]) };
      const url = `${api.base}/api/v1/organizations/usage/runs?${new URLSearchParams(query).toString()}`;
      const statements = routeStatements(organizationId, query);

      await timeRequests(url, apiKey, WARMUP_REQUESTS);
      const { times, body } = await timeRequests(url, apiKey, requests);
      const { total_count } = body as { total_count: number };
      const { indexed, scanned } = await baselines(sql, [statements.totals, statements.page]);
      say(`${label}, last 90 days: ${total_count} matching runs`);
      report(times, indexed, scanned, requests);
      console.log(`  plan of the totals query:\n    ${await plan(sql, statements.totals)}`);
      met &&= median(times) < TARGET_MEDIAN_MS;
    }
    console.log(`target median < ${TARGET_MEDIAN_MS} ms through the API: ${met ? 'met' : 'NOT met'}`);

    // The campaign's report: GET /campaign/{id} aggregates its analysed runs.
    const campaignUrl = `${api.base}/api/v1/campaign/${campaignId}`;
    await timeRequests(campaignUrl, apiKey, WARMUP_REQUESTS);
    const { times, body } = await timeRequests(campaignUrl, apiKey, ANALYSIS_REQUESTS);
    const { analysis } = body as { analysis: { analyzed_calls: number } };
    const statement = campaignReportStatement(campaignId);
    const { indexed, scanned } = await baselines(sql, [statement]);
    say(`GET /campaign/{id}: report over ${analysis.analyzed_calls.toLocaleString('en')} analysed calls`);
    report(times, indexed, scanned, ANALYSIS_REQUESTS);
    console.log(`  plan:\n    ${await plan(sql, statement)}`);

    const cpuMs = await offlineAnalysisCpuMs(ANALYZED_CALLS, ANALYZED_TURNS);
    say(
      `offline analyzer: ${cpuMs.toFixed(3)} ms of CPU per call (${ANALYZED_CALLS.toLocaleString('en')} calls of ` +
        `${ANALYZED_TURNS} exchanges)`,
    );
  } finally {
    await sql.end().catch(() => undefined);
    await api?.stop();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
