/**
 * `npm run demo`: a whole campaign against a running `npm start`, through the public API only.
 * Signs up a demo user (or logs in), makes sure it has an agent and a default outbound simulator
 * configuration with a number, uploads `scripts/demo-contacts.csv` (300 contacts whose last four
 * digits pick every simulator outcome), creates and starts a campaign, draws its progress until it
 * completes and prints where to see it in the Temporal UI.
 *
 * Environment: SWITCHBOARD_URL (default http://localhost:8000), TEMPORAL_UI_URL (default
 * http://localhost:8233), DEMO_EMAIL, DEMO_PASSWORD.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEMO_RETRY_AFTER, fetchWaitingOutRetryAfter } from './demo-fetch';

const BASE_URL = (process.env.SWITCHBOARD_URL ?? 'http://localhost:8000').replace(/\/+$/, '');
const TEMPORAL_UI_URL = (process.env.TEMPORAL_UI_URL ?? 'http://localhost:8233').replace(/\/+$/, '');
const EMAIL = process.env.DEMO_EMAIL ?? 'demo@switchboard.local';
const PASSWORD = process.env.DEMO_PASSWORD ?? 'switchboard demo password';
const AGENT_NAME = 'Switchboard demo agent';
const CONFIGURATION_NAME = 'Demo simulator';
const CALLER_ID = '+14155550100';
const CSV_PATH = join(__dirname, 'demo-contacts.csv');
const POLL_MS = 500;
/** Without a terminal, a progress line every this often (ms) instead of a redrawn bar. */
const PLAIN_PRINT_MS = 3000;
/** Consecutive 503s from the progress route tolerated before giving up. */
const MAX_UNAVAILABLE = 10;

const say = (line: string) => console.log(`[demo] ${line}`);

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
    retryAfter: string | null,
  ) {
    super(`${what} answered ${status}${retryAfter ? ` (Retry-After: ${retryAfter})` : ''}: ${JSON.stringify(body)}`);
  }
}

/** One API call; JSON in, JSON out; anything but `expect` (default 2xx) throws. */
async function call<T>(
  method: string,
  path: string,
  options: { token?: string; json?: unknown; csv?: string; expect?: number[] } = {},
): Promise<T> {
  const headers: Record<string, string> = {};
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.csv !== undefined) {
    headers['Content-Type'] = 'text/csv';
    body = options.csv;
  }
  let res: Response;
  try {
    // Throttled (a login after others' failures, a busy server): wait as told, within bounds.
    res = await fetchWaitingOutRetryAfter(
      `${BASE_URL}/api/v1${path}`,
      { method, headers, body },
      {
        ...DEMO_RETRY_AFTER,
        onWait: (status, seconds) =>
          say(`${method} ${path} answered ${status}; waiting ${seconds} s as its Retry-After asks...`),
      },
    );
  } catch (error) {
    throw new Error(`Cannot reach ${BASE_URL} (${(error as Error).message}): is \`npm start\` running?`);
  }
  const text = await res.text();
  const parsed: unknown = text ? JSON.parse(text) : null;
  const accepted = options.expect ?? [];
  if (!res.ok && !accepted.includes(res.status)) {
    throw new ApiError(res.status, parsed, `${method} ${path}`, res.headers.get('retry-after'));
  }
  return parsed as T;
}

/** Signs up the demo user (a no-op when it exists already: signup answers alike), then logs in. */
async function sessionToken(): Promise<string> {
  const credentials = { email: EMAIL, password: PASSWORD };
  await call('POST', '/auth/signup', { json: credentials });
  const { token } = await call<{ token: string }>('POST', '/auth/login', { json: credentials });
  say(`Logged in as ${EMAIL}.`);
  return token;
}

/** A start → talk → end agent whose greeting uses the CSV's `first_name` and `city` columns. */
const demoDefinition = {
  nodes: [
    {
      id: 'start',
      type: 'startCall',
      position: { x: 0, y: 0 },
      data: { name: 'Greeting', prompt: 'Hello {{first_name}}, this is the Switchboard demo calling about {{city}}.' },
    },
    {
      id: 'talk',
      type: 'agentNode',
      position: { x: 0, y: 120 },
      data: { name: 'Confirm', prompt: 'Ask whether the appointment next week still suits them.' },
    },
    { id: 'end', type: 'endCall', position: { x: 0, y: 240 }, data: { name: 'Goodbye', prompt: 'Thank them.' } },
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'talk', data: { label: 'Answered', condition: 'The person answered' } },
    { id: 'e2', source: 'talk', target: 'end', data: { label: 'Done', condition: 'They replied' } },
  ],
};

async function demoAgent(token: string): Promise<number> {
  const agents = await call<{ id: number; name: string }[]>('GET', '/workflow/fetch?status=active', { token });
  const existing = agents.find((agent) => agent.name === AGENT_NAME);
  if (existing) return existing.id;
  const created = await call<{ id: number }>('POST', '/workflow/create/definition', {
    token,
    json: { name: AGENT_NAME, workflow_definition: demoDefinition },
  });
  say(`Created the agent "${AGENT_NAME}" (${created.id}).`);
  return created.id;
}

/** The simulator configuration, default outbound, with a caller id. */
async function demoConfiguration(token: string): Promise<number> {
  const { configurations } = await call<{ configurations: { id: number; name: string }[] }>(
    'GET',
    '/organizations/telephony-configs',
    { token },
  );
  let id = configurations.find((configuration) => configuration.name === CONFIGURATION_NAME)?.id;
  if (id === undefined) {
    ({ id } = await call<{ id: number }>('POST', '/organizations/telephony-configs', {
      token,
      json: { name: CONFIGURATION_NAME, config: { provider: 'simulator', ring_seconds: 1, talk_seconds: 2 } },
    }));
    say(`Created the simulator configuration "${CONFIGURATION_NAME}" (${id}).`);
  }
  await call('POST', `/organizations/telephony-configs/${id}/set-default-outbound`, { token });
  // 409: the number is there already.
  await call('POST', `/organizations/telephony-configs/${id}/phone-numbers`, {
    token,
    json: { address: CALLER_ID, is_default_caller_id: true },
    expect: [409],
  });
  return id;
}

interface Progress {
  state: string;
  total_rows: number;
  processed_rows: number;
  failed_rows: number;
  executed_count: number;
  in_flight: number;
  pending_retries: number;
  outcomes: Record<string, number>;
  progress_percentage: number;
}

const BAR_WIDTH = 30;
const OUTCOME_ORDER = ['completed', 'busy', 'no-answer', 'voicemail', 'failed', 'error', 'canceled'];

function progressLine(progress: Progress): string {
  const filled = Math.round((progress.progress_percentage / 100) * BAR_WIDTH);
  const bar = '█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled);
  const outcomes = OUTCOME_ORDER.filter((name) => progress.outcomes[name])
    .map((name) => `${name} ${progress.outcomes[name]}`)
    .join(', ');
  return (
    `[${bar}] ${progress.progress_percentage.toFixed(1).padStart(5)}% ` +
    `${progress.processed_rows}/${progress.total_rows} ${progress.state}; ` +
    `dialing ${progress.in_flight}, retries waiting ${progress.pending_retries}` +
    (outcomes ? `; ${outcomes}` : '')
  );
}

/** Redraws one line on a terminal; elsewhere prints a line every few seconds. */
async function watch(token: string, campaignId: number): Promise<Progress> {
  const tty = process.stdout.isTTY;
  let lastPrintedAt = 0;
  let unavailable = 0;
  for (;;) {
    let progress: Progress;
    try {
      progress = await call<Progress>('GET', `/campaign/${campaignId}/progress`, { token });
      unavailable = 0;
    } catch (error) {
      // A busy machine can make the progress query time out (503): the campaign goes on, so ask again.
      if (!(error instanceof ApiError) || error.status !== 503 || ++unavailable > MAX_UNAVAILABLE) throw error;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      continue;
    }
    const line = progressLine(progress);
    const finished = !['running', 'paused', 'draft'].includes(progress.state);
    if (tty) process.stdout.write(`\r${line}\x1b[K`);
    else if (finished || Date.now() - lastPrintedAt >= PLAIN_PRINT_MS) {
      console.log(line);
      lastPrintedAt = Date.now();
    }
    if (finished) {
      if (tty) process.stdout.write('\n');
      return progress;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function main(): Promise<void> {
  say(`API: ${BASE_URL}`);
  const token = await sessionToken();
  const agentId = await demoAgent(token);
  await demoConfiguration(token);

  const csv = await readFile(CSV_PATH, 'utf8');
  const source = await call<{ source_id: string; total_rows: number; columns: string[] }>(
    'POST',
    '/campaign/sources?file_name=demo-contacts.csv',
    { token, csv },
  );
  say(`Uploaded ${source.total_rows} contacts (columns: ${source.columns.join(', ')}) as ${source.source_id}.`);

  const campaign = await call<{ id: number }>('POST', '/campaign/create', {
    token,
    json: {
      name: `Demo campaign ${new Date().toISOString().slice(0, 19).replace('T', ' ')}`,
      workflow_id: agentId,
      source_type: 'csv',
      source_id: source.source_id,
      max_concurrency: 25,
      retry_config: { max_retries: 1, retry_delay_seconds: 5 },
    },
  });
  const started = await call<{ state: string }>('POST', `/campaign/${campaign.id}/start`, { token });
  const workflowUrl = `${TEMPORAL_UI_URL}/namespaces/default/workflows/campaign-${campaign.id}`;
  say(`Campaign ${campaign.id} is ${started.state}; watch it in the Temporal UI: ${workflowUrl}`);

  const startedAt = Date.now();
  const final = await watch(token, campaign.id);
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  say(
    `Campaign ${campaign.id} ${final.state} in ${seconds} s: ${final.processed_rows} contacts, ` +
      `${final.executed_count} calls dialed, ${final.failed_rows} without a completed call.`,
  );
  say(`Runs:        ${BASE_URL}/api/v1/campaign/${campaign.id}/runs`);
  say(`Temporal UI: ${workflowUrl}`);
  if (final.state !== 'completed') process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(`[demo] ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
