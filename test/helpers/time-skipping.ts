import { testDataConverter } from './temporal';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { onPath } from '../../scripts/executables';
import { freePort } from '../../scripts/free-port';
import { customSearchAttributes } from '../../workflows/search-attributes';

/** Temporal's time-skipping test server, the Java build published on Maven Central. */
export const TEST_SERVER_VERSION = '1.31.0';
const MAIN_CLASS = 'io.temporal.testserver.TestServer';
/** A short-lived helper server: start fast rather than run fast. */
const FAST_START = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>switchboard</groupId>
  <artifactId>temporal-test-server-classpath</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>${TEST_SERVER_VERSION}</version>
    </dependency>
  </dependencies>
</project>
`;

const cacheDir = (): string =>
  join(
    process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
    'switchboard',
    `temporal-test-server-${TEST_SERVER_VERSION}`,
  );

const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Starts the server once with class-data recording on, until it listens, then stops it. */
async function recordClassArchive(classpath: string, archive: string): Promise<void> {
  const port = await freePort();
  const child = spawn(
    'java',
    [...FAST_START, `-XX:ArchiveClassesAtExit=${archive}`, '-cp', classpath, MAIN_CLASS, String(port)],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 120_000;
  while (child.exitCode === null && Date.now() < deadline && !(await listening(port))) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGTERM');
  await exited;
}

/**
 * The launcher of the test server, fetched once into the cache with Maven. The SDK would download
 * a native build of the same server from outside the package registries, which this machine and
 * CI cannot reach; Java and Maven are on them. The launcher is written last: without it the
 * cache counts as empty.
 */
export async function provisionTestServer(): Promise<string> {
  const dir = cacheDir();
  const launcher = join(dir, 'temporal-test-server');
  if (existsSync(launcher)) return launcher;
  const missing = ['java', 'mvn'].filter((tool) => !onPath(tool));
  if (missing.length > 0) {
    throw new Error(`The time-skipping tests need ${missing.join(' and ')} (Debian: default-jdk-headless maven)`);
  }
  mkdirSync(join(dir, '..'), { recursive: true });
  const staging = mkdtempSync(`${dir}.partial-`);
  try {
    writeFileSync(join(staging, 'pom.xml'), POM);
    await promisify(execFile)(
      'mvn',
      ['--batch-mode', '--quiet', 'dependency:copy-dependencies', '-DoutputDirectory=lib'],
      { cwd: staging, maxBuffer: 16 * 1024 * 1024 },
    );
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  // The SDK gives the server 5 s to listen: an archive of the classes its start loads (recorded
  // at the final path, which the archive checks) lets the JVM start in about a second.
  const classpath = `${join(dir, 'lib')}/*`;
  const archive = join(dir, 'classes.jsa');
  await recordClassArchive(classpath, archive);
  writeFileSync(
    launcher,
    `#!/bin/sh\nexec java ${FAST_START.join(' ')} -XX:SharedArchiveFile='${archive}' -cp '${classpath}' ${MAIN_CLASS} "$@"\n`,
    { mode: 0o755 },
  );
  return launcher;
}

/** The server's start, which misses the SDK's fixed 5 s budget on a loaded machine now and then. */
async function startTestServer(path: string): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path } },
        // Its client reads what test workers write: payloads encrypted as the service's are.
        client: { dataConverter: testDataConverter },
      });
    } catch (error) {
      if (attempt === 3 || !String(error).includes('did not start within')) throw error;
    }
  }
}

/**
 * A time-skipping Temporal of its own for one test file, with our search attributes: timers fire
 * when the test skips time. The test server cannot list search attributes, only add them.
 */
export async function createTimeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  const env = await startTestServer(await provisionTestServer());
  await env.connection.operatorService.addSearchAttributes({
    namespace: 'default',
    searchAttributes: Object.fromEntries(
      customSearchAttributes.map((key) => [
        key.name,
        temporal.api.enums.v1.IndexedValueType[`INDEXED_VALUE_TYPE_${key.type}`],
      ]),
    ),
  });
  return env;
}
