import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm run record-histories`: records the replay fixtures in test/fixtures/histories/ from the
 * current workflow code, by running the scenarios of test/workflows/record-histories.recording.ts (a
 * campaign with retries, a pause, a settings change and a resume; a campaign run that continues
 * as new; calls of each kind; a text chat session) on the test servers. The fixtures are replaced only when every
 * scenario was recorded. Run it when a release changes workflow code on purpose (see
 * docs/workflow-versioning.md), and commit the result.
 */
const root = join(__dirname, '..');
const fixtures = join(root, 'test', 'fixtures', 'histories');
const recorded = mkdtempSync(join(tmpdir(), 'switchboard-histories-'));

const jest = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
    // Not a `.test.ts`, so that the suite never runs (or skips) it.
    '--testMatch',
    '**/test/workflows/record-histories.recording.ts',
    '--runInBand',
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, RECORD_HISTORIES: recorded } },
);
if (jest.status !== 0) {
  console.error(`Recording failed; test/fixtures/histories/ is unchanged (partial recordings in ${recorded}).`);
  process.exit(1);
}
for (const file of readdirSync(fixtures)) if (file.endsWith('.json')) rmSync(join(fixtures, file));
const files = readdirSync(recorded).filter((file) => file.endsWith('.json'));
for (const file of files) renameSync(join(recorded, file), join(fixtures, file));
rmSync(recorded, { recursive: true, force: true });
console.log(`Recorded ${files.length} histories in test/fixtures/histories/: ${files.join(', ')}`);
