import { proxyActivities } from '@temporalio/workflow';
import type { createHealthActivities } from '../activities/health.activities';
import type { HealthCheckResult } from './definitions';

const { checkDatabase } = proxyActivities<ReturnType<typeof createHealthActivities>>({
  startToCloseTimeout: '5 seconds',
  // A health check reports the current state; retrying would hide an outage.
  retry: { maximumAttempts: 1 },
});

/**
 * Proves the whole chain works: the API started this workflow in Temporal, a worker picked it up,
 * and that worker's activity reached PostgreSQL.
 */
export async function healthCheckWorkflow(): Promise<HealthCheckResult> {
  return checkDatabase();
}
