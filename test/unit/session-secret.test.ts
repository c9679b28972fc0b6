import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSessionSecret } from '../../api/auth/session-secret';

describe('loadSessionSecret', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = join(mkdtempSync(join(tmpdir(), 'session-secret-')), 'data');
  });
  afterEach(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));

  it('uses SESSION_SECRET when set and writes nothing', () => {
    const secret = 'given-secret-that-is-32-characters-long';
    expect(loadSessionSecret({ SESSION_SECRET: secret, DATA_DIR: dataDir })).toBe(secret);
    expect(() => statSync(dataDir)).toThrow();
  });

  it('otherwise generates one, owner-readable only, and keeps it across restarts', () => {
    const first = loadSessionSecret({ DATA_DIR: dataDir });
    expect(first.length).toBeGreaterThanOrEqual(32);
    const file = join(dataDir, 'session-secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(first);
    expect(loadSessionSecret({ DATA_DIR: dataDir })).toBe(first);
  });

  it('refuses a kept secret that is too short, naming the file but not the value', () => {
    loadSessionSecret({ DATA_DIR: dataDir });
    writeFileSync(join(dataDir, 'session-secret'), 'short');
    expect(() => loadSessionSecret({ DATA_DIR: dataDir })).toThrow(/session-secret holds fewer than 32 characters/);
  });
});
