import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const root = join(__dirname, '..', '..');

describe('the committed MP3 hold audio', () => {
  it('is what the hold audio samples encode to (npm run hold-audio:mp3 -- --check)', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(root, 'scripts', 'hold-audio-mp3.ts'), '--check'],
      { cwd: root },
    );
    expect(stdout).toContain('up to date');
  }, 60_000);
});
