/** Inputs, outputs, signals and queries shared by the API, the worker and the tests. */

export interface HealthCheckResult {
  /** The worker that ran the activity. */
  workerIdentity: string;
  /** PostgreSQL's clock, read by the activity: proof that the worker reached the database. */
  databaseTime: string;
  databaseName: string;
}

/** Workflow ids are business keys; health checks are one-off, so they carry a unique suffix. */
export const healthCheckWorkflowId = (suffix: string): string => `health-check-${suffix}`;
