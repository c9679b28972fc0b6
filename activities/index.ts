import { AgentVersionCache } from '../domain/agents/version-cache';
import { createCallConclusionActivities } from './call-conclusion.activities';
import { createCallActivities, type CallActivityDeps } from './call.activities';
import { createCampaignActivities } from './campaign.activities';
import { createDataRetentionActivities, type DataRetentionActivityDeps } from './data-retention.activities';
import { createCampaignReportActivities, type CampaignReportDeps } from './campaign-report.activities';
import { createDialRuleActivities } from './dial-rules.activities';
import { createHealthActivities, type HealthActivityDeps } from './health.activities';
import { withCallEvents } from './call-events';
import { createCallEventEmitter, createOrganizationEventActivities } from './organization-events.activities';
import { createWebhookActivities, type WebhookActivityDeps } from './webhook.activities';

export type ActivityDeps = HealthActivityDeps & {
  /** The call activities' own deps; without them (health-only workers in tests) no call activity is registered. */
  calls?: Omit<CallActivityDeps, 'dataSource' | 'versions'> & CampaignReportDeps;
  /** Post-call webhooks and organization webhook subscriptions, registered with the call activities; default: no private addresses. */
  webhooks?: Omit<WebhookActivityDeps, 'dataSource' | 'versions' | 'secrets'>;
  /** Where recordings live; with it the retention sweep's activity is registered. */
  recordings?: DataRetentionActivityDeps['recordings'];
};

/** Every activity the worker registers, built over explicit dependencies. */
export function createActivities(deps: ActivityDeps) {
  const versions = new AgentVersionCache(deps.dataSource);
  return {
    ...createHealthActivities(deps),
    ...(deps.calls ? callActivities(deps, deps.calls, versions) : {}),
    ...(deps.recordings
      ? createDataRetentionActivities({ dataSource: deps.dataSource, recordings: deps.recordings })
      : {}),
  };
}

/** The activities of calls and campaigns. */
function callActivities(deps: ActivityDeps, calls: NonNullable<ActivityDeps['calls']>, versions: AgentVersionCache) {
  const steps = createCallActivities({ dataSource: deps.dataSource, versions, ...calls });
  const reports = createCampaignReportActivities(calls);
  const events = {
    dataSource: deps.dataSource,
    secrets: calls.secrets,
    temporal: calls.temporal,
    ...(deps.webhooks ?? { allowPrivate: false }),
  };
  const conclusion = createCallConclusionActivities({ ...steps, ...reports });
  return {
    ...steps,
    ...reports,
    ...conclusion,
    ...withCallEvents(steps, conclusion, createCallEventEmitter(events)),
    ...createCampaignActivities({ dataSource: deps.dataSource, ...calls }),
    ...createDialRuleActivities({ dataSource: deps.dataSource, rules: calls.settings.dialRules }),
    ...createWebhookActivities({
      dataSource: deps.dataSource,
      versions,
      secrets: calls.secrets,
      ...(deps.webhooks ?? { allowPrivate: false }),
    }),
    ...createOrganizationEventActivities(events),
  };
}
