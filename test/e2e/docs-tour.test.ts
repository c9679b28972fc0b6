import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { useTestServices } from '../helpers/services';
import { startCampaignStack, type CampaignStack } from '../helpers/stack-processes';
import { uniqueTaskQueue } from '../helpers/temporal';

const root = join(__dirname, '..', '..');
const README = join(root, 'README.md');
const TOUR_HEADING = '## A five-minute tour';
/** The guides whose examples build on each other, in the order a reader follows them. */
const GUIDES = ['accounts', 'calls', 'inbound', 'campaigns'].map((name) => join(root, 'docs', 'guides', `${name}.md`));

/**
 * `sh` blocks of the docs that this file does not run, and why: each is exercised elsewhere or needs
 * what a test machine lacks.
 */
const RUN_ELSEWHERE: Record<string, string> = {
  'README.md': 'the tour runs here; the quick start is what test/e2e/npm-start.test.ts runs',
  'docs/guides/running-locally.md': 'the quick start again (test/e2e/npm-start.test.ts)',
  'docs/operations/production.md': 'docker compose, which needs a container engine',
};

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** Every `sh` code block of a Markdown text, in order. */
const shellBlocks = (markdown: string): string[] =>
  [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');

/** The `sh` code blocks of the README's tour, in order, exactly as a reader copies them. */
function tourBlocks(readme: string): string[] {
  const start = readme.indexOf(`\n${TOUR_HEADING}\n`);
  if (start < 0) throw new Error(`README.md has no "${TOUR_HEADING}" section`);
  const end = readme.indexOf('\n## ', start + TOUR_HEADING.length + 1);
  return shellBlocks(readme.slice(start, end < 0 ? undefined : end));
}

/** Runs a script in bash; resolves with its output once it exits 0, rejects with the output otherwise. */
function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`the tour exited with code ${code}, signal ${signal}:\n${output}`));
    });
  });
}

const services = useTestServices();
let stack: CampaignStack | undefined;
let workdir: string;

beforeAll(async () => {
  stack = await startCampaignStack(services.db.url, uniqueTaskQueue('docs-tour'));
  await stack.worker.start();
  workdir = mkdtempSync(join(tmpdir(), 'switchboard-tour-'));
}, 180_000);

afterAll(async () => {
  await stack?.close();
  rmSync(workdir, { recursive: true, force: true });
});

it('finds the four command blocks of the tour', () => {
  expect(tourBlocks(readFileSync(README, 'utf8'))).toHaveLength(4);
});

it('runs every shell example of the docs here, except those exercised elsewhere', () => {
  const withShell = [README, ...markdownFiles(join(root, 'docs'))]
    .filter((page) => shellBlocks(readFileSync(page, 'utf8')).length > 0)
    .map((page) => relative(root, page))
    .sort();
  const covered = [...GUIDES.map((guide) => relative(root, guide)), ...Object.keys(RUN_ELSEWHERE)].sort();
  expect(withShell).toEqual(covered);
});

it("runs the README's tour as written against a started service", async () => {
  if (!stack) throw new Error('the stack did not start');
  const blocks = tourBlocks(readFileSync(README, 'utf8'));
  // What the tour left in its variables, for the assertions below; the commands are the README's.
  const report = `jq -cn --arg key "$KEY" --arg agent "$AGENT" --arg run "$RUN" --arg campaign "$CAMPAIGN" \\
    '{key: $key, agent: $agent, run: $run, campaign: $campaign}' | sed 's/^/TOUR /'`;
  const script = ['set -eo pipefail', ...blocks, report].join('\n');
  const output = await runBash(script, workdir, { ...process.env, SWITCHBOARD_URL: stack.apiBaseUrl }, 170_000);
  stack.assertAlive();

  const lines = output.split('\n');
  const reported = lines.find((line) => line.startsWith('TOUR '));
  if (!reported) throw new Error(`the tour printed no report:\n${output}`);
  const variables = JSON.parse(reported.slice('TOUR '.length)) as Record<string, string>;
  expect(variables.key).toMatch(/^sbk_/);
  for (const name of ['agent', 'run', 'campaign']) expect(variables[name]).toMatch(/^\d+$/);

  const json = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(json).toContainEqual(expect.objectContaining({ provider: 'simulator', is_default_outbound: true }));
  expect(json).toContainEqual(
    expect.objectContaining({ state: 'completed', call_status: 'completed', transcript_url: expect.any(String) }),
  );
  // The transcript of the answered call, as the run's transcript route serves it.
  expect(output).toMatch(/assistant: Hello Ada, this is a reminder of your appointment tomorrow\./);
  expect(json).toContainEqual(
    expect.objectContaining({ state: 'completed', processed_rows: 4, total_rows: 4, executed_count: 6 }),
  );
  const calls = json.filter((line) => 'called' in line);
  expect(calls).toHaveLength(6);
  expect(calls.filter((call) => call.status === 'completed')).toHaveLength(2);
  expect(calls.filter((call) => call.status === 'busy')).toHaveLength(2);
  expect(calls.filter((call) => call.status === 'no-answer')).toHaveLength(2);
}, 200_000);

it("runs the guides' examples (accounts, calls, inbound calls, campaigns) as written, one after another", async () => {
  if (!stack) throw new Error('the stack did not start');
  const blocks = GUIDES.flatMap((guide) => shellBlocks(readFileSync(guide, 'utf8')));
  expect(blocks).toHaveLength(5);
  const script = ['set -eo pipefail', ...blocks].join('\n');
  const output = await runBash(script, workdir, { ...process.env, SWITCHBOARD_URL: stack.apiBaseUrl }, 280_000);
  stack.assertAlive();

  // Calls: placed, the same Idempotency-Key with another body refused, a busy number.
  expect(output).toMatch(/"status":"initiated"/);
  expect(output).toContain('{"detail":"Idempotency-Key was already used with a different request"} 422');
  expect(output).toMatch(/"call_status":"busy","mapped_call_disposition":"busy"/);
  // Inbound: the simulator called the bound number and the agent answered.
  expect(output).toMatch(/"call_type":"inbound"/);
  // The campaign: six contacts, nine calls, then a redial draft of the three worth calling again.
  expect(output).toMatch(/"state":"completed","processed_rows":6,"failed_rows":4,"executed_count":9/);
  expect(output).toMatch(/"state":"draft","total_rows":3/);
}, 320_000);
