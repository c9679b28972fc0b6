/** Addresses the global setup publishes to every test file through the environment. */
export const TEST_ENV = {
  /** Admin connection string of the run's PostgreSQL (database `postgres`). */
  postgresAdminUrl: 'SWITCHBOARD_TEST_PG_ADMIN_URL',
  /** The migrated database each test file clones. */
  templateDatabase: 'SWITCHBOARD_TEST_PG_TEMPLATE',
  temporalAddress: 'SWITCHBOARD_TEST_TEMPORAL_ADDRESS',
  temporalCliPath: 'SWITCHBOARD_TEST_TEMPORAL_CLI',
  /** The workflow code, bundled once for the run: every test worker loads this file. */
  workflowBundle: 'SWITCHBOARD_TEST_WORKFLOW_BUNDLE',
  /** Where test files mark themselves running, so a file that must run alone can wait for the others. */
  runningFiles: 'SWITCHBOARD_TEST_RUNNING_FILES',
} as const;

export function testEnv(name: keyof typeof TEST_ENV): string {
  const value = process.env[TEST_ENV[name]];
  if (!value) throw new Error(`${TEST_ENV[name]} is not set: run the tests with jest (global setup)`);
  return value;
}
