import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { provisionTemporalCli } from '../../scripts/temporal-cli';

const quiet = () => undefined;
const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

const fakeBinary = (dir: string): string => {
  const path = join(dir, 'temporal');
  writeFileSync(path, '#!/bin/sh\nexit 0\n');
  chmodSync(path, 0o755);
  return path;
};

// Each case passes its own environment: nothing of the machine's PATH or cache leaks in.
const isolated = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  PATH: tempDir('empty-path-'),
  XDG_CACHE_HOME: tempDir('cache-'),
  ...env,
});

describe('provisionTemporalCli', () => {
  it('prefers TEMPORAL_CLI_PATH', async () => {
    const path = fakeBinary(tempDir('cli-'));
    await expect(provisionTemporalCli(quiet, isolated({ TEMPORAL_CLI_PATH: path }))).resolves.toEqual({
      type: 'existing-path',
      path,
      source: 'TEMPORAL_CLI_PATH',
    });
  });

  it('rejects a TEMPORAL_CLI_PATH that is not executable, saying so', async () => {
    await expect(provisionTemporalCli(quiet, isolated({ TEMPORAL_CLI_PATH: '/nonexistent/temporal' }))).rejects.toThrow(
      /TEMPORAL_CLI_PATH=\/nonexistent\/temporal is not an executable file/,
    );
  });

  it('then takes a temporal on PATH', async () => {
    const dir = tempDir('cli-');
    const path = fakeBinary(dir);
    await expect(provisionTemporalCli(quiet, isolated({ PATH: dir }))).resolves.toMatchObject({ path, source: 'PATH' });
  });

  it('then the cache under XDG_CACHE_HOME', async () => {
    const cache = tempDir('cache-');
    const dir = join(cache, 'switchboard', 'temporal-cli-v1.5.1');
    mkdirSync(dir, { recursive: true });
    const path = fakeBinary(dir);
    await expect(provisionTemporalCli(quiet, isolated({ XDG_CACHE_HOME: cache }))).resolves.toMatchObject({
      path,
      source: 'cache',
    });
  });

  it('falls back to the SDK download, explaining what to install, when Go is missing', async () => {
    const lines: string[] = [];
    await expect(provisionTemporalCli((line) => lines.push(line), isolated({}))).resolves.toEqual({
      type: 'cached-download',
      source: 'SDK download',
    });
    expect(lines.join('\n')).toMatch(/Go is not installed[\s\S]*install Go >= 1.25[\s\S]*TEMPORAL_CLI_PATH/);
  });
});
