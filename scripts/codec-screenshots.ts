/**
 * `npm run docs:codec-screenshots`: the pictures of docs/SECURITY.md's codec server section, from a
 * running `npm start`. Places one simulator call through the public API, waits for it to end, and
 * opens its workflow in the Temporal UI with headless Chromium twice: as the UI shows it through the
 * API's codec server (decrypted input and result), and with the codec server out of the browser's
 * reach (the `binary/encrypted` payloads Temporal stores).
 *
 * Uses CHROMIUM_PATH, or Chromium on the PATH (installs Debian's package when it is missing).
 * Environment: SWITCHBOARD_URL (default http://localhost:8000), TEMPORAL_UI_URL (default
 * http://localhost:8233), TEMPORAL_NAMESPACE (default `default`), SCREENSHOT_DIR (default docs/images).
 */
import { join, resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { ensureChromium } from './chromium';

const BASE_URL = (process.env.SWITCHBOARD_URL ?? 'http://localhost:8000').replace(/\/+$/, '');
const TEMPORAL_UI_URL = (process.env.TEMPORAL_UI_URL ?? 'http://localhost:8233').replace(/\/+$/, '');
const NAMESPACE = process.env.TEMPORAL_NAMESPACE ?? 'default';
const OUT_DIR = resolve(process.env.SCREENSHOT_DIR ?? join(__dirname, '..', 'docs', 'images'));
const EMAIL = 'codec-screenshots@switchboard.local';
const PASSWORD = 'switchboard codec screenshots password';
const CONFIGURATION_NAME = 'Codec screenshots simulator';
const CALLER_ID = '+14155550100';
const CALLED_NUMBER = '+14155550123';
const VIEWPORT = { width: 1400, height: 900 };
const CALL_TIMEOUT_MS = 120_000;

const say = (line: string) => console.log(`[codec-screenshots] ${line}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One API call, JSON in and out; anything but 2xx throws. */
async function call<T>(
  method: string,
  path: string,
  options: { auth?: Record<string, string>; json?: unknown } = {},
): Promise<T> {
  const headers: Record<string, string> = { ...options.auth };
  if (options.json !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`${BASE_URL}/api/v1${path}`, {
      method,
      headers,
      body: options.json === undefined ? undefined : JSON.stringify(options.json),
    });
  } catch (error) {
    throw new Error(`Cannot reach ${BASE_URL} (${(error as Error).message}): is \`npm start\` running?`);
  }
  const text = await res.text();
  if (!res.ok) {
    throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  }
  return (text ? JSON.parse(text) : null) as T;
}

/** A key of a user of its own (signup answers alike when the user exists already). */
async function apiKey(): Promise<Record<string, string>> {
  const credentials = { email: EMAIL, password: PASSWORD };
  await call('POST', '/auth/signup', { json: credentials });
  const { token } = await call<{ token: string }>('POST', '/auth/login', { json: credentials });
  const { api_key } = await call<{ api_key: string }>('POST', '/user/api-keys', {
    auth: { Authorization: `Bearer ${token}` },
    json: { name: `codec screenshots ${new Date().toISOString()}` },
  });
  return { 'X-API-Key': api_key };
}

const agentDefinition = {
  nodes: [
    {
      id: 'start',
      type: 'startCall',
      position: { x: 0, y: 0 },
      data: { name: 'Greeting', prompt: 'Hello {{first_name}}, this is a reminder of your appointment tomorrow.' },
    },
    {
      id: 'talk',
      type: 'agentNode',
      position: { x: 0, y: 120 },
      data: { name: 'Confirm', prompt: 'Ask whether the time still suits them.' },
    },
    { id: 'end', type: 'endCall', position: { x: 0, y: 240 }, data: { name: 'Goodbye', prompt: 'Say goodbye.' } },
    { id: 'api', type: 'trigger', position: { x: 240, y: 0 }, data: { name: 'API trigger' } },
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'talk', data: { label: 'Answered', condition: 'The person answered' } },
    { id: 'e2', source: 'talk', target: 'end', data: { label: 'Done', condition: 'They confirmed' } },
  ],
};

interface Agent {
  id: number;
  workflow_definition: { nodes: { type: string; data: { trigger_path?: string } }[] };
}

/** The user's simulator configuration, with the caller number (made on the first run). */
async function simulatorConfiguration(auth: Record<string, string>): Promise<number> {
  const { configurations } = await call<{ configurations: { id: number; name: string }[] }>(
    'GET',
    '/organizations/telephony-configs',
    { auth },
  );
  const existing = configurations.find((configuration) => configuration.name === CONFIGURATION_NAME);
  if (existing) return existing.id;
  const { id } = await call<{ id: number }>('POST', '/organizations/telephony-configs', {
    auth,
    json: { name: CONFIGURATION_NAME, config: { provider: 'simulator', ring_seconds: 1, talk_seconds: 2 } },
  });
  await call('POST', `/organizations/telephony-configs/${id}/phone-numbers`, {
    auth,
    json: { address: CALLER_ID, is_default_caller_id: true },
  });
  return id;
}

/** Places a call with a fresh agent on a simulator configuration; answers its workflow id once it has ended. */
async function placeCall(auth: Record<string, string>): Promise<string> {
  const agent = await call<Agent>('POST', '/workflow/create/definition', {
    auth,
    json: { name: `Reminder agent ${new Date().toISOString()}`, workflow_definition: agentDefinition },
  });
  const triggerPath = agent.workflow_definition.nodes.find((node) => node.type === 'trigger')?.data.trigger_path;
  if (!triggerPath) throw new Error('The agent was saved without a trigger_path');

  const configurationId = await simulatorConfiguration(auth);

  const placed = await call<{ workflow_run_id: number; workflow_run_name: string }>(
    'POST',
    `/public/agent/${triggerPath}`,
    {
      auth,
      json: {
        phone_number: CALLED_NUMBER,
        initial_context: { first_name: 'Ada' },
        telephony_configuration_id: configurationId,
      },
    },
  );
  say(`Placed ${placed.workflow_run_name}; waiting for it to end...`);
  const deadline = Date.now() + CALL_TIMEOUT_MS;
  for (;;) {
    const run = await call<{ is_completed: boolean }>('GET', `/workflow/${agent.id}/runs/${placed.workflow_run_id}`, {
      auth,
    });
    if (run.is_completed) return placed.workflow_run_name;
    if (Date.now() > deadline)
      throw new Error(`${placed.workflow_run_name} did not end in ${CALL_TIMEOUT_MS / 1000} s`);
    await sleep(500);
  }
}

/**
 * Opens the call's workflow page, the codec server out of the browser's reach when `blockCodec`,
 * and saves it once `shows` (text only the expected view of its input and result has) is drawn.
 */
async function screenshot(
  browser: Browser,
  workflowId: string,
  { file, blockCodec, shows }: { file: string; blockCodec: boolean; shows: string },
): Promise<void> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const page = await context.newPage();
    // The UI may name the API by another host than SWITCHBOARD_URL (localhost, 127.0.0.1): match the path.
    if (blockCodec)
      await page.route(
        (url) => url.pathname.startsWith('/codec/'),
        (route) => route.abort(),
      );
    await page.goto(`${TEMPORAL_UI_URL}/namespaces/${NAMESPACE}/workflows/${encodeURIComponent(workflowId)}`);
    await page.getByText(shows).first().waitFor({ timeout: 60_000 });
    await page.waitForLoadState('networkidle');
    const path = join(OUT_DIR, file);
    await page.screenshot({ path });
    say(`Wrote ${path}`);
  } finally {
    await context.close();
  }
}

async function main(): Promise<void> {
  const executablePath = process.env.CHROMIUM_PATH ?? (await ensureChromium(say));
  const workflowId = await placeCall(await apiKey());
  const browser = await chromium.launch({ executablePath, headless: true });
  try {
    // Decrypted, the result names the call's status; out of the codec's reach, only key ids show.
    await screenshot(browser, workflowId, { file: 'temporal-ui-decoded.png', blockCodec: false, shows: 'callStatus' });
    await screenshot(browser, workflowId, {
      file: 'temporal-ui-encrypted.png',
      blockCodec: true,
      shows: 'encryption-key-id',
    });
  } finally {
    await browser.close();
  }
}

main().catch((error: unknown) => {
  console.error(`[codec-screenshots] ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
