import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/free-port';

/**
 * The embedded cluster never starts silently beside a leftover of an earlier run. The package is
 * ESM-only, which jest's module sandbox cannot import, so each start runs in a process of its own.
 */

const root = join(__dirname, '..', '..');
const runDir = mkdtempSync(join(tmpdir(), 'switchboard-pg-lock-'));
chmodSync(runDir, 0o755); // reachable by the `postgres` user when run as root
const dataDir = join(runDir, 'postgres');

/** Starts a cluster on `dataDir` in a child process; it stops when its standard input closes. */
const START = `
const { startEmbeddedPostgres } = require(${JSON.stringify(join(root, 'scripts', 'embedded-postgres.ts'))});
startEmbeddedPostgres({ dataDir: process.argv[1], port: Number(process.argv[2]), user: 'switchboard',
  password: 'switchboard', database: 'switchboard', log: (line) => console.log('log: ' + line) })
  .then((pg) => { console.log('ready'); process.stdin.on('end', () => pg.stop()); process.stdin.resume(); })
  .catch((error) => { console.log('error: ' + error.message); process.exit(1); });
`;

interface Cluster {
  output: () => string;
  /** Resolves when the process has printed "ready" or exited. */
  settled: Promise<number | null>;
  stop(): Promise<void>;
}

async function startCluster(): Promise<Cluster> {
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', START, dataDir, String(await freePort())], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const settled = new Promise<number | null>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready\n')) resolve(null);
    });
    void exited.then(resolve);
  });
  return {
    output: () => output,
    settled,
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}

afterAll(() => rmSync(runDir, { recursive: true, force: true }));

it('names the server that still runs on the same data, and starts over a lock whose server is gone', async () => {
  const first = await startCluster();
  expect(await first.settled).toBeNull();
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const second = await startCluster();
    expect(await second.settled).toBe(1);
    expect(second.output()).toMatch(
      new RegExp(`error: PostgreSQL from an earlier run still runs on ${dataDir}: process ${pid} \\(.*postgres`),
    );
  } finally {
    await first.stop();
  }

  // A lock naming a process that is gone (as after a power cut) is cleared.
  writeFileSync(join(dataDir, 'postmaster.pid'), `999999999\n${dataDir}\n`);
  const third = await startCluster();
  expect(await third.settled).toBeNull();
  await third.stop();
  expect(third.output()).toContain('log: Removed a stale postmaster.pid (process 999999999 is gone)');
}, 120_000);
