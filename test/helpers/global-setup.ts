import 'reflect-metadata';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { createDataSource } from '../../entities/data-source';
import { FAILURE_CONVERTER_PATH } from '../../platform/payload-codec';
import { runMigrations } from '../../scripts/migrate';
import { startEmbeddedPostgres } from '../../scripts/embedded-postgres';
import { copyNotice, reachableBinaries } from '../../scripts/postgres-binaries';
import { provisionTemporalCli } from '../../scripts/temporal-cli';
import { ensureSpeechTools } from '../../scripts/speech-tools';
import { customSearchAttributes } from '../../workflows/search-attributes';
import { TEST_ENV } from './test-env';
import { freePort } from '../../scripts/free-port';

/**
 * Once per `jest` run: a real PostgreSQL (fresh data directory, free port) with a migrated template
 * database, a real Temporal dev server (the provisioned CLI) with our search attributes, and one
 * bundle of the workflow code that every test worker loads (webpack takes seconds per bundle).
 */
export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const log = (line: string) => process.stdout.write(`[test setup] ${line}\n`);
  const executable = await provisionTemporalCli(log);
  // The offline speech engines (Debian packages) are installed here, so `npm test` works on a fresh machine.
  const speechStarted = Date.now();
  await ensureSpeechTools(log);
  log(`espeak-ng and PocketSphinx ready in ${Date.now() - speechStarted} ms`);

  // /tmp is reachable by the `postgres` user when the tests run as root.
  const runDir = mkdtempSync(join(tmpdir(), 'switchboard-test-'));
  chmodSync(runDir, 0o755);
  const bundlePath = join(runDir, 'workflow-bundle.js');
  // The benchmarks' bundle: the production workflows and the no-op baselines some tests run.
  const bundled = bundleWorkflowCode({
    workflowsPath: require.resolve('../../bench/workflows'),
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: new DefaultLogger('WARN'),
  }).then(({ code }) => writeFileSync(bundlePath, code));
  // Webpack runs while the servers start; its failure is thrown at the `await` below.
  bundled.catch(() => undefined);
  const dataDir = join(runDir, 'postgres');
  const user = 'switchboard';
  const password = 'switchboard';
  const template = 'switchboard_template';
  // As root in a checkout under a closed folder, PostgreSQL runs from a copy, as with `npm start`.
  const binaries = await reachableBinaries();
  const notice = copyNotice(binaries);
  if (notice) log(notice.trim());
  const postgres = await startEmbeddedPostgres({
    dataDir,
    port: await freePort(),
    user,
    password,
    database: template,
    binaries,
    // Every file's pools, the API and worker processes the end-to-end files start, and the cluster
    // test's Temporal server (a pool per service) share this server: the default 100 ran out.
    settings: { max_connections: '500' },
  });
  const dataSource = createDataSource({ url: postgres.url, applicationName: 'test-setup' });
  await dataSource.initialize();
  await runMigrations(dataSource);
  await dataSource.destroy();

  const temporal = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: executable.type === 'existing-path' ? { type: 'existing-path', path: executable.path } : executable,
      searchAttributes: customSearchAttributes,
    },
  });

  await bundled;

  const adminUrl = new URL(postgres.url);
  adminUrl.pathname = '/postgres';
  process.env[TEST_ENV.postgresAdminUrl] = adminUrl.toString();
  process.env[TEST_ENV.templateDatabase] = template;
  process.env[TEST_ENV.temporalAddress] = temporal.address;
  process.env[TEST_ENV.workflowBundle] = bundlePath;
  process.env[TEST_ENV.runningFiles] = join(runDir, 'running-files');
  if (executable.type === 'existing-path') process.env[TEST_ENV.temporalCliPath] = executable.path;
  (globalThis as Record<string, unknown>).__switchboardTestServers = { postgres, temporal, runDir };
  log(`PostgreSQL, Temporal (${temporal.address}) and the workflow bundle ready in ${Date.now() - started} ms`);
}
