import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { replayHistory } from '../../platform/replay';
import { testDataConverter, testWorkflowBundle } from '../helpers/temporal';

/**
 * Histories recorded from the workflow code (`npm run record-histories`, see
 * docs/workflow-versioning.md) replayed against the current workflow code: a change that would
 * break running campaigns or calls fails here, before it ships. No server is needed. They are
 * replayed through the service's payload codec, as `npm run replay` does: payloads recorded before
 * encryption pass through it unchanged.
 */
const HISTORIES = path.join(__dirname, '..', 'fixtures', 'histories');

/** Every workflow type that runs for long enough to be live during a deploy has a recording. */
const REQUIRED = ['call-workflow.json', 'campaign-workflow.json', 'text-chat-workflow.json'];

const fixtureFiles = async (): Promise<string[]> =>
  (await readdir(HISTORIES)).filter((file) => file.endsWith('.json')).sort();

const readFixture = async (file: string): Promise<unknown> =>
  JSON.parse(await readFile(path.join(HISTORIES, file), 'utf8')) as unknown;

describe('recorded workflow histories', () => {
  it('include a call, a campaign and a text chat', async () => {
    expect(await fixtureFiles()).toEqual(expect.arrayContaining(REQUIRED));
  });

  it('replay against the current workflow code', async () => {
    const files = await fixtureFiles();
    const histories = await Promise.all(
      files.map(async (file) => ({ workflowId: file.replace(/\.json$/, ''), history: await readFixture(file) })),
    );
    // One replay worker over the run's bundle for every fixture.
    const verdicts: { workflowId: string; error?: string }[] = [];
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: testWorkflowBundle(), replayName: 'replay-fixtures', dataConverter: testDataConverter },
      histories,
    )) {
      verdicts.push({ workflowId: result.workflowId, ...(result.error ? { error: String(result.error) } : {}) });
    }
    const byId = (a: { workflowId: string }, b: { workflowId: string }) => a.workflowId.localeCompare(b.workflowId);
    expect(verdicts.sort(byId)).toEqual(histories.map(({ workflowId }) => ({ workflowId })).sort(byId));
  }, 120_000);

  it('replay through `npm run replay` (which bundles the workflow code itself)', async () => {
    await expect(
      replayHistory(await readFixture('campaign-workflow.json'), 'campaign-workflow', testDataConverter),
    ).resolves.toBeUndefined();
  }, 120_000);
});
