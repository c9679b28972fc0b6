import { createCallActivities, type CallActivityDeps } from './call.activities';
import { createHealthActivities, type HealthActivityDeps } from './health.activities';

export type ActivityDeps = HealthActivityDeps & {
  /** The call activities' own deps; without them (health-only workers in tests) no call activity is registered. */
  calls?: Omit<CallActivityDeps, 'dataSource'>;
};

/** Every activity the worker registers, built over explicit dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createHealthActivities(deps),
    ...(deps.calls ? createCallActivities({ dataSource: deps.dataSource, ...deps.calls }) : {}),
  };
}
