import autocannon from 'autocannon';
import { createApiKey, migrate, say, startApi, startDatabase, type RunningApi } from './helpers';

/**
 * `npx tsx bench/auth-me.ts`: requests per second and latency of `GET /api/v1/auth/me` with an API
 * key, against `GET /api/v1/health` (no auth, no database) as the baseline of the same run.
 *
 * The API runs as its own process from its real entry point (api/main.ts), on 127.0.0.1 only,
 * against PostgreSQL (DATABASE_URL, else an embedded one in a temporary directory). Temporal is
 * never reached by these routes, so its address is a closed port. Logs are discarded.
 */

const CONNECTIONS = 10;
const WARMUP_SECONDS = 2;
const MEASURE_SECONDS = 10;
const TARGET_REQUESTS_PER_SECOND = 1_500;

interface Measurement {
  label: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

async function measure(label: string, url: string, headers: Record<string, string> = {}): Promise<Measurement> {
  await autocannon({ url, connections: CONNECTIONS, duration: WARMUP_SECONDS, headers });
  const result = await autocannon({ url, connections: CONNECTIONS, duration: MEASURE_SECONDS, headers });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${label}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  }
  return { label, requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

const row = ({ label, requestsPerSecond, p50, p99 }: Measurement) =>
  `${label.padEnd(34)} ${requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${String(p50).padStart(3)} ms   p99 ${String(p99).padStart(3)} ms`;

async function main(): Promise<void> {
  const database = await startDatabase();
  let api: RunningApi | undefined;
  try {
    await migrate(database.url);
    api = await startApi(database.url);
    const { base } = api;
    const apiKey = await createApiKey(base);
    say(`API up at ${base}; ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${MEASURE_SECONDS} s each`);

    const health = await measure('GET /api/v1/health (baseline)', `${base}/api/v1/health`);
    const me = await measure('GET /api/v1/auth/me (X-API-Key)', `${base}/api/v1/auth/me`, { 'X-API-Key': apiKey });

    console.log(row(health));
    console.log(row(me));
    console.log(`auth/me ÷ health: ${(me.requestsPerSecond / health.requestsPerSecond).toFixed(2)}`);
    const met = me.requestsPerSecond >= TARGET_REQUESTS_PER_SECOND;
    console.log(`target ≥ ${TARGET_REQUESTS_PER_SECOND} req/s for auth/me: ${met ? 'met' : 'NOT met'}`);
  } finally {
    await api?.stop();
    await database.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
