import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { replayHistory } from '../../platform/replay';

/**
 * Recorded histories of real executions (`npm run replay -- <id> --save ...`, see README
 * "Changing workflow code") replayed against the current workflow code: a change that would break
 * running campaigns or calls fails here, before it ships. No server is needed.
 */
const HISTORIES = path.join(__dirname, '..', 'fixtures', 'histories');

/** Every workflow type that runs for long enough to be live during a deploy has a recording. */
const REQUIRED = ['call-workflow.json', 'campaign-workflow.json'];

describe('recorded workflow histories', () => {
  it('include a call and a campaign', async () => {
    const files = await readdir(HISTORIES);
    expect(files).toEqual(expect.arrayContaining(REQUIRED));
  });

  it('replay against the current workflow code', async () => {
    const files = (await readdir(HISTORIES)).filter((file) => file.endsWith('.json')).sort();
    for (const file of files) {
      const history: unknown = JSON.parse(await readFile(path.join(HISTORIES, file), 'utf8'));
      await expect(replayHistory(history, file.replace(/\.json$/, ''))).resolves.toBeUndefined();
    }
  }, 120_000);
});
