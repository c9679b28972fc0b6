import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { Client } from 'pg';
import { createApiKey, migrate, say, startApi, startDatabase, type RunningApi } from './helpers';
import { cpuMeter, findProcess } from './process-cpu';

/**
 * `npm run bench:import`: `POST /api/v1/campaign/sources` with a generated contacts CSV of
 * BENCH_IMPORT_ROWS rows (default 1,000,000, about 60 MB) and of a fifth of that, each to a fresh API
 * process (real entry point, production mode, `CSV_MAX_BYTES` raised) over a fresh embedded
 * PostgreSQL (or DATABASE_URL). Measured: rows/s from the first byte sent to the 201, and the API
 * process's peak resident memory (the kernel's VmHWM, plus VmRSS sampled every 100 ms).
 * Baseline of the same run: `psql \copy` of the same file into a table of the same columns
 * (plain text, a bigserial key), i.e. PostgreSQL's own CSV loading without any validation.
 * Also measured, to show what the upload can never beat: PostgreSQL's own share of it, the rows
 * the upload stored copied back into `campaign_contacts` by `psql \copy` in one transaction
 * (rolled back), with the table's key, its source trigger and json column.
 */

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);
const SIZES = [Math.round(ROWS / 5), ROWS];
const TARGET_SLOWDOWN = 3;
const TARGET_PEAK_RSS_MB = 300;

const AREA_CODES = ['212', '415', '646', '312', '617', '303', '206', '512', '305', '404'];
const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken', 'Radia', 'Linus'];
const LAST_NAMES = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Thompson', 'Perlman'];
const CITIES = ['Boston', 'Denver', 'Seattle', 'Austin', 'Miami', 'Atlanta', 'Chicago', 'New York'];
const ZONES = ['America/New_York', 'America/Chicago', 'America/Denver', 'America/Los_Angeles', ''];

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const rate = (rows: number, ms: number) => Math.round(rows / (ms / 1000));

/** Distinct valid US numbers, a few extra columns, some empty timezones: about 60 bytes a row. */
async function writeCsv(path: string, rows: number): Promise<number> {
  const out = createWriteStream(path);
  out.write('phone_number,first_name,last_name,company,city,timezone\n');
  let batch = '';
  for (let i = 0; i < rows; i += 1) {
    const number = `+1${AREA_CODES[i % 10]}${2_000_000 + Math.floor(i / 10)}`;
    batch += `${number},${FIRST_NAMES[i % 10]}${i % 997},${LAST_NAMES[i % 9]},Acme ${i % 89},${CITIES[i % 8]},${ZONES[i % 5]}\n`;
    if (batch.length > 1 << 20) {
      if (!out.write(batch)) await once(out, 'drain');
      batch = '';
    }
  }
  out.end(batch);
  await finished(out);
  return statSync(path).size;
}

function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/** Streams the file as the request body (with Content-Length, as curl --data-binary @file sends it). */
function upload(api: RunningApi, apiKey: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL('/api/v1/campaign/sources?file_name=bench.csv', api.base);
    const req = request(
      url,
      {
        method: 'POST',
        headers: { 'X-API-Key': apiKey, 'Content-Type': 'text/csv', 'Content-Length': statSync(path).size },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    createReadStream(path).pipe(req);
  });
}

/** Runs psql's commands in one session; the time they took. */
async function psql(databaseUrl: string, commands: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(
    'psql',
    [databaseUrl, '-v', 'ON_ERROR_STOP=1', ...commands.flatMap((command) => ['-c', command])],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const [code] = (await once(child, 'exit')) as [number];
  if (code !== 0) throw new Error(`psql exited with ${code}`);
  return performance.now() - started;
}

async function psqlCopy(databaseUrl: string, path: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`DROP TABLE IF EXISTS import_baseline;
    CREATE TABLE import_baseline (id bigserial PRIMARY KEY, phone_number text NOT NULL, first_name text,
                                  last_name text, company text, city text, timezone text)`);
  await client.end();
  return psql(databaseUrl, [
    `\\copy import_baseline (phone_number, first_name, last_name, company, city, timezone) FROM '${path}' WITH (FORMAT csv, HEADER true)`,
  ]);
}

const CONTACT_COLUMNS = 'source_id, row_number, phone_number, timezone, initial_context';

/**
 * The COPY the upload ends with, alone: its stored rows written out, then copied back into
 * `campaign_contacts` under another list of the same organization, in a transaction rolled back.
 */
async function postgresAlone(databaseUrl: string, dir: string, sourceId: string): Promise<number> {
  const path = join(dir, 'contacts.copy');
  const floorId = `${sourceId}-floor`;
  await psql(databaseUrl, [
    `\\copy (SELECT '${floorId}', row_number, phone_number, timezone, initial_context FROM campaign_contacts WHERE source_id = '${sourceId}' ORDER BY row_number) TO '${path}'`,
  ]);
  try {
    return await psql(databaseUrl, [
      'BEGIN',
      `INSERT INTO campaign_sources (id, organization_id, file_name, total_rows, columns)
         SELECT '${floorId}', organization_id, 'floor', 0, '[]' FROM campaign_sources WHERE id = '${sourceId}'`,
      `\\copy campaign_contacts (${CONTACT_COLUMNS}) FROM '${path}'`,
      'ROLLBACK',
    ]);
  } finally {
    rmSync(path, { force: true });
  }
}

interface Measured {
  rows: number;
  bytes: number;
  copyMs: number;
  uploadMs: number;
  /** PostgreSQL's own share of the upload: the COPY into campaign_contacts alone. */
  postgresMs: number;
  /** CPU time during the upload, by process; the PostgreSQL server's during its COPY alone. */
  uploadCpuMs: Record<string, number>;
  postgresCpuMs: number;
  idleRss: number;
  peakRss: number;
  sampledPeakRss: number;
}

/**
 * Every size starts its own API over the same database: they share one secrets key, or the second
 * API could not open what the first one sealed.
 */
async function measure(databaseUrl: string, secretsKey: string, dir: string, rows: number): Promise<Measured> {
  const path = join(dir, `contacts-${rows}.csv`);
  const bytes = await writeCsv(path, rows);
  say(`${rows} rows, ${mb(bytes)}: psql \\copy …`);
  const copyMs = await psqlCopy(databaseUrl, path);

  const api = await startApi(databaseUrl, { CSV_MAX_BYTES: String(bytes + 1024), SECRETS_KEY: secretsKey });
  try {
    const pid = api.pid;
    if (pid === undefined) throw new Error('the API process has no pid');
    const apiKey = await createApiKey(api.base);
    const idleRss = procStatusBytes(pid, 'VmRSS');
    let sampledPeakRss = idleRss;
    const sampler = setInterval(() => {
      sampledPeakRss = Math.max(sampledPeakRss, procStatusBytes(pid, 'VmRSS'));
    }, 100);
    // The server's process tree: its backends are its children (none when DATABASE_URL is elsewhere).
    const postgresPid = findProcess('bin/postgres', `-p ${new URL(databaseUrl).port}`);
    say(`${rows} rows: upload …`);
    const uploadCpu = cpuMeter({ API: pid, PostgreSQL: postgresPid });
    const started = performance.now();
    const res = await upload(api, apiKey, path);
    const uploadMs = performance.now() - started;
    const uploadCpuMs = uploadCpu.stop();
    clearInterval(sampler);
    if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${res.body.slice(0, 500)}`);
    const body = JSON.parse(res.body) as { source_id: string; total_rows: number };
    if (body.total_rows !== rows) throw new Error(`upload stored ${body.total_rows} rows, expected ${rows}`);
    const peakRss = procStatusBytes(pid, 'VmHWM');
    say(`${rows} rows: PostgreSQL alone …`);
    const postgresCpu = cpuMeter({ PostgreSQL: postgresPid });
    const postgresMs = await postgresAlone(databaseUrl, dir, body.source_id);
    const postgresCpuMs = postgresCpu.stop().PostgreSQL ?? 0;
    return { rows, bytes, copyMs, uploadMs, postgresMs, uploadCpuMs, postgresCpuMs, idleRss, peakRss, sampledPeakRss };
  } finally {
    await api.stop();
    rmSync(path, { force: true });
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-import-'));
  const database = await startDatabase();
  try {
    await migrate(database.url);
    const results: Measured[] = [];
    const secretsKey = randomBytes(32).toString('hex');
    for (const rows of SIZES) results.push(await measure(database.url, secretsKey, dir, rows));

    console.log(
      '\n| rows | file | psql \\copy | upload | PostgreSQL alone | rows/s (upload) | rows/s (\\copy) | upload / \\copy | PostgreSQL alone / \\copy | API RSS idle | API RSS peak |',
    );
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    for (const r of results) {
      console.log(
        `| ${r.rows.toLocaleString('en')} | ${mb(r.bytes)} | ${seconds(r.copyMs)} | ${seconds(r.uploadMs)} | ${seconds(r.postgresMs)} | ` +
          `${rate(r.rows, r.uploadMs).toLocaleString('en')} | ${rate(r.rows, r.copyMs).toLocaleString('en')} | ` +
          `${(r.uploadMs / r.copyMs).toFixed(2)}x | ${(r.postgresMs / r.copyMs).toFixed(2)}x | ` +
          `${mb(r.idleRss)} | ${mb(r.peakRss)} (sampled ${mb(r.sampledPeakRss)}) |`,
      );
    }
    console.log('\n| rows | CPU during the upload | PostgreSQL CPU during its COPY alone |');
    console.log('|---:|---|---:|');
    for (const r of results) {
      const during = Object.entries(r.uploadCpuMs)
        .map(([name, ms]) => `${name} ${seconds(ms)}`)
        .join(', ');
      console.log(`| ${r.rows.toLocaleString('en')} | ${during} | ${seconds(r.postgresCpuMs)} |`);
    }
    const largest = results[results.length - 1];
    if (largest) {
      const slowdown = largest.uploadMs / largest.copyMs;
      const peakMb = Math.max(...results.map((r) => r.peakRss)) / 1024 / 1024;
      say(
        `goal: within ${TARGET_SLOWDOWN}x of \\copy (${slowdown.toFixed(2)}x: ${slowdown <= TARGET_SLOWDOWN ? 'met' : 'NOT met'}), ` +
          `peak API RSS under ${TARGET_PEAK_RSS_MB} MB (${peakMb.toFixed(0)} MB: ${peakMb < TARGET_PEAK_RSS_MB ? 'met' : 'NOT met'})`,
      );
    }
  } finally {
    await database.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
