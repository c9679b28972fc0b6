import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { downloadRuns, replayRuns } from '../../platform/replay';
import { noopWorkflow } from '../../bench/workflows';
import {
  connectTestTemporal,
  testDataConverter,
  testWorkflowBundle,
  uniqueTaskQueue,
  type TestTemporal,
} from '../helpers/temporal';

/** `npm run replay`: the verdict first, without the bundler's and the worker's logs. */

const root = join(__dirname, '..', '..');
let temporal: TestTemporal;

beforeAll(async () => {
  temporal = await connectTestTemporal();
});
afterAll(() => temporal.close());

const replayCli = (args: string[]): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'replay.ts'), ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });

it('prints its verdict first and nothing of the bundler', async () => {
  const fixture = join('test', 'fixtures', 'histories', 'campaign-continued-as-new.json');
  const { code, output } = await replayCli(['--file', fixture]);
  expect(code).toBe(0);
  const lines = output.trim().split('\n');
  expect(lines[0]).toMatch(/^REPLAY PASSED: .*campaign-continued-as-new\.json \(1 run, \d+ events\)/);
  expect(lines).toHaveLength(2);
  expect(output).not.toMatch(/webpack|Workflow bundle created|Worker state changed/);
}, 120_000);

it('names a history that does not replay, and fails', async () => {
  const { code, output } = await replayCli(['--file', join('test', 'fixtures', 'histories', 'no-such-file.json')]);
  expect(code).toBe(1);
  expect(output).toMatch(/^REPLAY FAILED: .*no-such-file\.json/);
}, 60_000);

it('downloads every run of a workflow id and replays them with one bundle', async () => {
  const taskQueue = uniqueTaskQueue('replay-cli');
  const worker = await Worker.create({
    connection: temporal.nativeConnection,
    taskQueue,
    workflowBundle: testWorkflowBundle(),
    dataConverter: testDataConverter,
  });
  const workflowId = `${taskQueue}-noop`;
  await worker.runUntil(temporal.client.workflow.execute(noopWorkflow, { taskQueue, workflowId }));
  const runs = await downloadRuns(temporal.client, workflowId);
  expect(runs).toHaveLength(1);
  expect(runs[0]?.runId).toEqual(expect.any(String));
  const verdicts = await replayRuns(runs, { workflowBundle: testWorkflowBundle(), dataConverter: testDataConverter });
  expect(verdicts).toEqual([{ workflowId, runId: runs[0]?.runId, events: expect.any(Number) }]);
}, 120_000);
