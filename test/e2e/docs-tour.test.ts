import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_GUIDES, shellBlocks, tourBlocks } from '../helpers/doc-examples';
import { useTestServices } from '../helpers/services';
import { startCampaignStack, type CampaignStack } from '../helpers/stack-processes';
import { uniqueTaskQueue } from '../helpers/temporal';

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
/** Each run of commands in a folder of its own: the tour and the campaigns guide both write contacts.csv. */
const workdirs: string[] = [];
const newWorkdir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-tour-'));
  workdirs.push(dir);
  return dir;
};

beforeAll(async () => {
  stack = await startCampaignStack(services.db.url, uniqueTaskQueue('docs-tour'));
  await stack.worker.start();
}, 180_000);

afterAll(async () => {
  await stack?.close();
  for (const dir of workdirs) rmSync(dir, { recursive: true, force: true });
});

it('finds the four command blocks of the tour', () => {
  expect(tourBlocks()).toHaveLength(4);
});

// The tour and the guides sign up accounts of their own, so they run side by side on one service.
it.concurrent(
  "runs the README's tour as written against a started service",
  async () => {
    if (!stack) throw new Error('the stack did not start');
    const blocks = tourBlocks();
    // What the tour left in its variables, for the assertions below; the commands are the README's.
    const report = `jq -cn --arg key "$KEY" --arg agent "$AGENT" --arg run "$RUN" --arg campaign "$CAMPAIGN" \\
    '{key: $key, agent: $agent, run: $run, campaign: $campaign}' | sed 's/^/TOUR /'`;
    const script = ['set -eo pipefail', ...blocks, report].join('\n');
    const output = await runBash(script, newWorkdir(), { ...process.env, SWITCHBOARD_URL: stack.apiBaseUrl }, 280_000);
    stack.assertAlive();

    const lines = output.split('\n');
    const reported = lines.find((line) => line.startsWith('TOUR '));
    if (!reported) throw new Error(`the tour printed no report:\n${output}`);
    const variables = JSON.parse(reported.slice('TOUR '.length)) as Record<string, string>;
    expect(variables.key).toMatch(/^sbk_/);
    for (const name of ['agent', 'run', 'campaign']) expect(variables[name]).toMatch(/^\d+$/);

    const json = lines
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
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
  },
  320_000,
);

it.concurrent(
  "runs the guides' examples (accounts, calls, inbound calls, campaigns) as written, one after another",
  async () => {
    if (!stack) throw new Error('the stack did not start');
    const blocks = RUN_GUIDES.flatMap((guide) => shellBlocks(readFileSync(guide, 'utf8')));
    expect(blocks).toHaveLength(5);
    const script = ['set -eo pipefail', ...blocks].join('\n');
    const output = await runBash(script, newWorkdir(), { ...process.env, SWITCHBOARD_URL: stack.apiBaseUrl }, 280_000);
    stack.assertAlive();

    // Calls: placed, the same Idempotency-Key with another body refused, a busy number.
    expect(output).toMatch(/"status":"initiated"/);
    expect(output).toMatch(/"Idempotency-Key was already used with a different request".* 422\n/);
    expect(output).toMatch(/"call_status":"busy","mapped_call_disposition":"busy"/);
    // Inbound: the simulator called the bound number and the agent answered.
    expect(output).toMatch(/"call_type":"inbound"/);
    // The campaign: six contacts, nine calls, then a redial draft of the three worth calling again.
    expect(output).toMatch(/"state":"completed","processed_rows":6,"failed_rows":4,"executed_count":9/);
    expect(output).toMatch(/"state":"draft","total_rows":3/);
  },
  320_000,
);
