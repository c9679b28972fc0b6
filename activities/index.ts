import { createHealthActivities, type HealthActivityDeps } from './health.activities';

export type ActivityDeps = HealthActivityDeps;

/** Every activity the worker registers, built over explicit dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createHealthActivities(deps),
  };
}
