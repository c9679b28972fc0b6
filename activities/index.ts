import { AgentVersionCache } from '../domain/agents/version-cache';
import { createAnalysisActivities } from './analysis.activities';
import { createToolRunnerDeps } from '../domain/tools/tool-runner-deps';
import { createCallConclusionActivities } from './call-conclusion.activities';
import { createCallActivities, type CallActivityDeps } from './call.activities';
import { createCampaignActivities } from './campaign.activities';
import { createDataRetentionActivities, type DataRetentionActivityDeps } from './data-retention.activities';
import { createCampaignReportActivities, type CampaignReportDeps } from './campaign-report.activities';
import { createDialRuleActivities } from './dial-rules.activities';
import { createHealthActivities, type HealthActivityDeps } from './health.activities';
import { createTextChatActivities } from './text-chat.activities';
import { createKnowledgeBaseActivities, type KnowledgeBaseActivityDeps } from './knowledge-base.activities';
import { withAnalysisEvent, withCallEvents, withInboundCallStarted } from './call-events';
import {
  createAnalysisEventEmitter,
  createCallEventEmitter,
  createOrganizationEventActivities,
} from './organization-events.activities';
import { createPreCallFetchActivities } from './pre-call-fetch.activities';
import { createWebhookActivities, type WebhookActivityDeps } from './webhook.activities';

export type ActivityDeps = HealthActivityDeps &
  Pick<KnowledgeBaseActivityDeps, 'embeddings'> & {
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
    ...createKnowledgeBaseActivities(deps),
    ...(deps.calls ? callActivities(deps, deps.calls, versions) : {}),
    ...(deps.recordings
      ? createDataRetentionActivities({ dataSource: deps.dataSource, recordings: deps.recordings })
      : {}),
  };
}

/** The activities of calls, text chats and campaigns. */
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
  const callEvents = createCallEventEmitter(events);
  return {
    ...steps,
    ...reports,
    ...conclusion,
    ...withCallEvents(steps, conclusion, callEvents),
    ...createTextChatActivities({
      dataSource: deps.dataSource,
      versions,
      ...calls,
      finalizeRun: (input) => steps.finalizeRun(input),
    }),
    ...createCampaignActivities({ dataSource: deps.dataSource, ...calls }),
    ...createDialRuleActivities({ dataSource: deps.dataSource, rules: calls.settings.dialRules }),
    ...withAnalysisEvent(
      createAnalysisActivities({
        dataSource: deps.dataSource,
        versions,
        secrets: calls.secrets,
        llm: calls.settings.llm,
        prices: { perMinuteUsd: calls.settings.pricePerMinuteUsd, per1kTokensUsd: calls.settings.pricePer1kTokensUsd },
        allowPrivate: deps.webhooks?.allowPrivate ?? false,
        ...(deps.webhooks?.resolve ? { resolve: deps.webhooks.resolve } : {}),
      }),
      createAnalysisEventEmitter(events),
    ),
    ...withInboundCallStarted(
      createPreCallFetchActivities({
        dataSource: deps.dataSource,
        versions,
        outbound: createToolRunnerDeps({
          dataSource: deps.dataSource,
          secrets: calls.secrets,
          config: { ALLOW_PRIVATE_WEBHOOKS: calls.settings.allowPrivateWebhooks ?? false },
        }),
      }),
      callEvents,
    ),
    ...createWebhookActivities({
      dataSource: deps.dataSource,
      versions,
      secrets: calls.secrets,
      ...(deps.webhooks ?? { allowPrivate: false }),
    }),
    ...createOrganizationEventActivities(events),
  };
}
