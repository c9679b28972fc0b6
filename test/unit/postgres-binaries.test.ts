import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyBinaries } from '../../scripts/postgres-binaries';

/**
 * The copy of PostgreSQL's binaries that a root start makes when the `postgres` user cannot reach
 * node_modules, on a small tree shaped like the package's `native` folder.
 */

let work: string;
let native: string;
let copies: string;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'switchboard-pg-binaries-'));
  native = join(work, 'native');
  copies = join(work, 'copies');
  for (const part of ['bin', 'lib', 'share/timezone']) mkdirSync(join(native, part), { recursive: true });
  writeFileSync(join(native, 'bin', 'postgres'), '#!/bin/sh\n', { mode: 0o700 });
  writeFileSync(join(native, 'lib', 'libpq.so.5.18'), 'library', { mode: 0o600 });
  symlinkSync('libpq.so.5.18', join(native, 'lib', 'libpq.so.5'));
  writeFileSync(join(native, 'share', 'timezone', 'UTC'), 'zone', { mode: 0o600 });
  writeFileSync(join(native, 'pg-symlinks.json'), '[]');
  chmodSync(join(native, 'share', 'timezone'), 0o700);
});

afterEach(() => rmSync(work, { recursive: true, force: true }));

const mode = (path: string) => statSync(path).mode & 0o777;

it('copies bin, lib and share once, with links kept relative and everything open to other users', () => {
  const copy = copyBinaries(native, copies, 'linux-x64-1.0.0');
  expect(copy).toBe(join(copies, 'linux-x64-1.0.0'));
  expect(readFileSync(join(copy, 'bin', 'postgres'), 'utf8')).toBe('#!/bin/sh\n');
  expect(mode(join(copy, 'bin', 'postgres'))).toBe(0o755);
  expect(mode(join(copy, 'lib', 'libpq.so.5.18'))).toBe(0o644);
  expect(mode(join(copy, 'share', 'timezone'))).toBe(0o755);
  expect(readlinkSync(join(copy, 'lib', 'libpq.so.5'))).toBe('libpq.so.5.18');
  expect(readFileSync(join(copy, 'lib', 'libpq.so.5'), 'utf8')).toBe('library');
  expect(existsSync(join(copy, 'pg-symlinks.json'))).toBe(false);
  expect(readFileSync(join(copy, 'COMPLETE'), 'utf8')).toContain('file bin/postgres 10\n');

  // A second start uses the same copy as it is.
  const inode = statSync(join(copy, 'bin', 'postgres')).ino;
  expect(copyBinaries(native, copies, 'linux-x64-1.0.0')).toBe(copy);
  expect(statSync(join(copy, 'bin', 'postgres')).ino).toBe(inode);
});

it('replaces a copy that was damaged, cut short or no longer matches the package', () => {
  const copy = copyBinaries(native, copies, 'linux-x64-1.0.0');

  truncateSync(join(copy, 'lib', 'libpq.so.5.18'), 3);
  copyBinaries(native, copies, 'linux-x64-1.0.0');
  expect(readFileSync(join(copy, 'lib', 'libpq.so.5.18'), 'utf8')).toBe('library');

  rmSync(join(copy, 'COMPLETE'));
  copyBinaries(native, copies, 'linux-x64-1.0.0');
  expect(existsSync(join(copy, 'COMPLETE'))).toBe(true);

  writeFileSync(join(native, 'share', 'timezone', 'Europe'), 'new zone');
  copyBinaries(native, copies, 'linux-x64-1.0.0');
  expect(readFileSync(join(copy, 'share', 'timezone', 'Europe'), 'utf8')).toBe('new zone');
});

it('removes a half-made copy whose process is gone, and leaves one whose process still copies', () => {
  mkdirSync(join(copies, 'linux-x64-1.0.0.partial-999999999', 'bin'), { recursive: true });
  mkdirSync(join(copies, `linux-x64-0.9.0.partial-${process.ppid}`), { recursive: true });
  copyBinaries(native, copies, 'linux-x64-1.0.0');
  expect(existsSync(join(copies, 'linux-x64-1.0.0.partial-999999999'))).toBe(false);
  expect(existsSync(join(copies, `linux-x64-0.9.0.partial-${process.ppid}`))).toBe(true);
  expect(existsSync(join(copies, `linux-x64-1.0.0.partial-${process.pid}`))).toBe(false);
});
