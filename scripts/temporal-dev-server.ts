import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { TemporalExecutable } from './temporal-cli';
import { exitWithin, spawnTethered } from './tethered-spawn';

export interface DevServerOptions {
  executable: TemporalExecutable;
  dbFile: string;
  port: number;
  uiPort: number;
  namespace: string;
  /** The codec server the Web UI decodes payloads with (the API's `/codec`). */
  uiCodecEndpoint?: string;
  log?: (line: string) => void;
}

export interface RunningTemporal {
  address: string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls the frontend until it answers (the SDK's own launcher gives up after 5 s; we allow 60 s). */
export async function waitForTemporal(address: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: '1 second' });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await sleep(200);
    }
  }
  throw new Error(`Temporal at ${address} did not answer within ${timeoutMs} ms: ${String(lastError)}`);
}

/**
 * Runs `temporal server start-dev` with a SQLite file, so workflows survive restarts, and the Web UI.
 * Without a local binary it falls back to the SDK's download (internet needed).
 */
export async function startTemporalDevServer(options: DevServerOptions): Promise<RunningTemporal> {
  const dbFile = resolve(options.dbFile);
  mkdirSync(dirname(dbFile), { recursive: true });
  const address = `127.0.0.1:${options.port}`;
  const log = options.log ?? (() => undefined);
  const codecArgs = options.uiCodecEndpoint ? ['--ui-codec-endpoint', options.uiCodecEndpoint] : [];

  if (options.executable.type === 'cached-download') {
    const env = await TestWorkflowEnvironment.createLocal({
      server: {
        dbFilename: dbFile,
        port: options.port,
        uiPort: options.uiPort,
        namespace: options.namespace,
        extraArgs: codecArgs,
      },
    });
    return { address, stop: () => env.teardown() };
  }

  const { child } = spawnTethered(
    options.executable.path,
    [
      'server',
      'start-dev',
      '--db-filename',
      dbFile,
      '--ip',
      '127.0.0.1',
      '--port',
      String(options.port),
      '--ui-port',
      String(options.uiPort),
      '--namespace',
      options.namespace,
      '--log-level',
      'warn',
      ...codecArgs,
    ],
    // Its own process group, so a terminal's Ctrl-C does not stop it before the worker has drained.
    { stdio: ['ignore', 'pipe', 'pipe'], deathSignal: 'SIGTERM' },
  );
  // While it shuts down the server warns about every connection it is closing: noise, not news.
  let stopping = false;
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      if (stopping) return;
      for (const line of chunk.split('\n')) if (line) log(line);
    });
  }
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`temporal server start-dev exited with code ${code}`))),
  );
  exited.catch(() => undefined);
  await Promise.race([waitForTemporal(address), exited]);
  return {
    address,
    async stop() {
      stopping = true;
      child.kill('SIGTERM');
      if (!(await exitWithin(child, 10_000))) child.kill('SIGKILL');
    },
  };
}
