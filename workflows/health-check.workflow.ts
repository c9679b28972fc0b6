import { proxyActivities } from '@temporalio/workflow';
import type { createHealthActivities } from '../activities/health.activities';
import { ACTIVITY_POLICIES } from './activity-policies';
import type { HealthCheckResult } from './definitions';

const { checkDatabase } = proxyActivities<ReturnType<typeof createHealthActivities>>(ACTIVITY_POLICIES.healthCheck);

/**
 * Proves the whole chain works: the API started this workflow in Temporal, a worker picked it up,
 * and that worker's activity reached PostgreSQL.
 */
export async function healthCheckWorkflow(): Promise<HealthCheckResult> {
  return checkDatabase();
}
