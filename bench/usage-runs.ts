import { Client } from 'pg';
import { createApiKey, migrate, postJson, say, startApi, startDatabase, type RunningApi } from './helpers';

/**
 * `npm run bench:usage`: latency of `GET /api/v1/organizations/usage/runs` with a `calledNumber`
 * filter and a date range, over 1,000,000 runs of one organization, through the real API (see
 * bench/helpers.ts). Baseline of the same run: the same two SQL statements the route sends (totals
 * and page), timed directly in PostgreSQL with index and bitmap scans turned off (a plain table scan).
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 1_000_000);
const AGENTS = 5;
const WARMUP_REQUESTS = 5;
const REQUESTS = 50;
const BASELINE_REPETITIONS = 5;
const TARGET_MEDIAN_MS = 200;
/** Digits of an existing called number searched for. */
const SEARCH_DIGITS = [4, 7];

/**
 * One statement, seeded: a year of runs; 40 area codes and 7 random digits for called numbers;
 * 20 organization numbers as callers; dispositions weighted as in a typical outbound campaign, with
 * no duration for calls that never connected; tokens grow with the duration.
 */
const INSERT_RUNS = `
  WITH agent_list AS (
    SELECT min(organization_id) AS organization_id, array_agg(id ORDER BY id) AS ids,
           array_agg(current_definition_id ORDER BY id) AS definitions, count(*)::int AS n
      FROM agents)
  INSERT INTO runs (organization_id, workflow_id, definition_id, name, mode, call_type, state, is_completed,
                    call_duration_seconds, platform_token_usage, created_at, initial_context, gathered_context)
  SELECT l.organization_id, l.ids[1 + g % l.n], l.definitions[1 + g % l.n], 'run-' || g, 'twilio',
         CASE WHEN r.kind < 0.1 THEN 'inbound' ELSE 'outbound' END, 'completed', true,
         d.seconds, d.seconds * (20 + floor(r.tokens * 30)),
         now() - r.age * interval '365 days',
         jsonb_build_object(
           'caller_number', '+1202555' || lpad((floor(r.caller * 20))::int::text, 4, '0'),
           'called_number', '+1' || (200 + floor(r.area * 40))::int || lpad((floor(r.digits * 1e7))::int::text, 7, '0')),
         jsonb_build_object('mapped_call_disposition', d.code)
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
                  ELSE 5 + floor(-ln(1 - r.length) * 90)::int END AS seconds) AS d`;

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

/** The route's two statements, as it sends them (see domain/runs/run-queries.ts). */
function routeStatements(organizationId: number, from: string, to: string, search: string) {
  const where =
    'r.organization_id = $1 AND r.created_at >= $2::timestamptz AND r.created_at <= $3::timestamptz AND r.called_number LIKE $4';
  const params = [organizationId, from, to, `%${search}%`];
  return {
    totals: {
      sql: `SELECT count(*)::int AS total, coalesce(sum(r.platform_token_usage), 0)::float8 AS tokens,
                   coalesce(sum(r.call_duration_seconds), 0)::float8 AS seconds FROM runs r WHERE ${where}`,
      params,
    },
    page: {
      sql: `SELECT r.*, a.name AS workflow_name FROM runs r JOIN agents a ON a.id = r.workflow_id WHERE ${where}
             ORDER BY r.created_at DESC, r.id DESC LIMIT 50 OFFSET 0`,
      params,
    },
  };
}

async function timeSql(client: Client, statements: ReturnType<typeof routeStatements>, count: number) {
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await client.query(statements.totals.sql, statements.totals.params);
    await client.query(statements.page.sql, statements.page.params);
    times.push(performance.now() - started);
  }
  return times;
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
    let started = performance.now();
    await sql.query('SELECT setseed(0.42)');
    await sql.query(INSERT_RUNS, [RUNS]);
    say(`inserted ${RUNS.toLocaleString('en')} runs in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    started = performance.now();
    await sql.query('VACUUM ANALYZE runs');
    say(`VACUUM ANALYZE in ${((performance.now() - started) / 1000).toFixed(0)} s`);

    // Realistic searches: the last 4 digits (many matches) and the last 7 of an existing number, 90 days.
    const { rows } = await sql.query<{ organization_id: number; called_number: string }>(
      `SELECT organization_id, called_number FROM runs WHERE created_at > now() - interval '30 days' ORDER BY id LIMIT 1`,
    );
    const { organization_id: organizationId, called_number: calledNumber } = rows[0]!;
    const to = new Date().toISOString();
    const from = new Date(Date.now() - 90 * 86_400_000).toISOString();
    let met = true;
    for (const digits of SEARCH_DIGITS) {
      const search = calledNumber.slice(-digits);
      const query = new URLSearchParams({
        start_date: from,
        end_date: to,
        filters: JSON.stringify([{ attribute: 'calledNumber', type: 'text', value: { value: search } }]),
      });
      const url = `${api.base}/api/v1/organizations/usage/runs?${query.toString()}`;
      const statements = routeStatements(organizationId, from, to, search);

      await timeRequests(url, apiKey, WARMUP_REQUESTS);
      const { times, body } = await timeRequests(url, apiKey, REQUESTS);
      const { total_count } = body as { total_count: number };
      const indexed = await timeSql(sql, statements, BASELINE_REPETITIONS);
      const plan = await sql.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS) ${statements.totals.sql}`,
        statements.totals.params,
      );
      await sql.query('SET enable_indexscan = off');
      await sql.query('SET enable_bitmapscan = off');
      const scanned = await timeSql(sql, statements, BASELINE_REPETITIONS);
      await sql.query('RESET ALL');

      say(`calledNumber contains "${search}", last 90 days: ${total_count} matching runs`);
      console.log(
        `  API, ${REQUESTS} requests:           median ${ms(median(times))}   p95 ${ms(percentile(times, 95))}`,
      );
      console.log(`  SQL with indexes (${BASELINE_REPETITIONS}×):       median ${ms(median(indexed))}`);
      console.log(`  SQL, plain table scan (${BASELINE_REPETITIONS}×):  median ${ms(median(scanned))}`);
      console.log(`  plan of the totals query:\n    ${plan.rows.map((row) => row['QUERY PLAN']).join('\n    ')}`);
      met &&= median(times) < TARGET_MEDIAN_MS;
    }
    console.log(`target median < ${TARGET_MEDIAN_MS} ms through the API: ${met ? 'met' : 'NOT met'}`);
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
