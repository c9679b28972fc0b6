import type { ApiDeps } from '../context';
import { quotaBreach, Quotas } from '../../domain/quotas';
import { defineRoute, errorResponse, type Route } from '../route';
import {
  Campaign,
  CampaignDetail,
  CampaignIdParams,
  CampaignList,
  CampaignListQuery,
  CampaignProgressResponse,
  CampaignRunsQuery,
  CreateCampaignRequest,
  RedialCampaignRequest,
  UpdateCampaignRequest,
} from '../schemas/campaigns';
import { WorkflowRunsPage } from '../schemas/runs';
import { callLimitsFrom, checkMaxConcurrency } from '../../domain/campaigns/call-limits';
import { campaignAnalysis } from '../../domain/campaigns/campaign-analysis';
import { createDraftCampaign } from '../../domain/campaigns/campaign-create';
import { campaignProgress } from '../../domain/campaigns/campaign-progress';
import { redialCampaign } from '../../domain/campaigns/campaign-redial';
import { campaignRunsPage } from '../../domain/campaigns/campaign-runs';
import { settingsForCreate } from '../../domain/campaigns/campaign-settings';
import {
  startCampaign,
  transitionCampaign,
  updateCampaign,
  type CampaignTransitionDeps,
} from '../../domain/campaigns/campaign-transitions';
import { campaignPage, campaignViewOf, findCampaign } from '../../domain/campaigns/campaign-views';
import { notDialing } from '../../domain/campaigns/not-dialing';
import { createTelephonyServices } from '../../domain/telephony/telephony-services';

const security = ['ApiKey', 'SessionToken'] as const;
const tags = ['campaigns'];
const notFound = errorResponse('Campaign not found (or another organization’s)');
const wrongState = (allowed: string) =>
  errorResponse(`The campaign is not ${allowed}; the detail names its current state`);

export function createCampaignRoutes(deps: ApiDeps): Route[] {
  const { dataSource, temporal, config } = deps;
  const transitionDeps: CampaignTransitionDeps = {
    dataSource,
    temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    telephony: createTelephonyServices(deps),
    limits: callLimitsFrom(config),
  };
  const quotas = new Quotas(config);
  const prices = { perMinuteUsd: config.PRICE_PER_MINUTE_USD, per1kTokensUsd: config.PRICE_PER_1K_TOKENS_USD };

  const transition = (action: 'pause' | 'resume' | 'cancel', summary: string, allowed: string) =>
    defineRoute(
      {
        method: 'post',
        path: `/campaign/{campaign_id}/${action}`,
        operationId: `${action}Campaign`,
        summary,
        description:
          'Sent to the campaign workflow as a Temporal Update: the answer comes once the workflow has accepted it.' +
          (action === 'resume'
            ? " 409 also when the organization's running campaigns, with this one, would pass `ORG_MAX_CALLS_IN_FLIGHT`."
            : ''),
        tags,
        security,
        params: CampaignIdParams,
        responses: {
          200: { description: 'The campaign', schema: Campaign },
          404: notFound,
          409:
            action === 'resume'
              ? errorResponse(
                  `The campaign is not ${allowed} (the detail names its current state), or the calls in flight ` +
                    'limit (`ORG_MAX_CALLS_IN_FLIGHT`) or `CAMPAIGN_MAX_CONCURRENCY` would be passed',
                )
              : wrongState(allowed),
        },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await transitionCampaign(transitionDeps, auth, params.campaign_id, action);
      },
    );

  return [
    defineRoute(
      {
        method: 'post',
        path: '/campaign/create',
        operationId: 'createCampaign',
        summary: 'Create a campaign (draft) over an uploaded contact list',
        description:
          'Defaults: `retry_config` {enabled: true, max_retries: 2, retry_delay_seconds: 120, retry_on_busy, ' +
          'retry_on_no_answer and retry_on_voicemail true}; `max_concurrency` 10; no `schedule_config`: any time; ' +
          '`circuit_breaker` {enabled: false, failure_threshold: 0.5, window_seconds: 120, min_calls_in_window: 5}. ' +
          "Without `telephony_configuration_id` the organization's default outbound configuration is used. " +
          'A `time_slots` field is refused (422): send `schedule_config.slots`. A `max_concurrency` above the ' +
          "deployment's `CAMPAIGN_MAX_CONCURRENCY` (at most 100) answers 422.",
        tags,
        security,
        body: CreateCampaignRequest,
        responses: {
          201: { description: 'The campaign, in state `draft`', schema: Campaign },
          400: errorResponse(
            '`workflow_not_found`, `source_not_found`, `telephony_configuration_not_found`, ' +
              '`fallback_telephony_configuration_not_found`, `fallback_caller_number_not_found`, a fallback equal to ' +
              'the campaign configuration, or template variables the agent needs that the contact list lacks (named)',
          ),
          409: errorResponse(quotaBreach('campaigns')),
        },
      },
      async (ctx, { body, auth }) => {
        checkMaxConcurrency(transitionDeps.limits, body.max_concurrency);
        const row = await createDraftCampaign(dataSource, auth, quotas, {
          settings: settingsForCreate(body),
          agentId: body.workflow_id,
          sourceId: body.source_id,
          telephonyConfigurationId: body.telephony_configuration_id,
        });
        ctx.status = 201;
        ctx.body = await campaignViewOf(dataSource, row);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/campaign',
        operationId: 'listCampaigns',
        summary: "The organization's campaigns, newest first",
        description: "The organization's campaigns, newest first, paged; `state` narrows the list to one state.",
        tags,
        security,
        query: CampaignListQuery,
        responses: { 200: { description: 'A page of campaigns', schema: CampaignList } },
      },
      async (ctx, { query, auth }) => {
        ctx.body = await campaignPage(dataSource, auth, query);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/campaign/{campaign_id}',
        operationId: 'getCampaign',
        summary: 'One campaign, with its logs, its calls’ analysis and why it is not dialing',
        description:
          "The campaign's settings, counters and log entries, `analysis`: the success rate, sentiment split and " +
          'top tags of its analysed calls, and `not_dialing`: why it places no new call now. ' +
          "404 when it is unknown or another organization's.",
        tags,
        security,
        params: CampaignIdParams,
        responses: { 200: { description: 'The campaign', schema: CampaignDetail }, 404: notFound },
      },
      async (ctx, { params, auth }) => {
        const row = await findCampaign(dataSource, auth, params.campaign_id);
        const [view, analysis, reasons] = await Promise.all([
          campaignViewOf(dataSource, row),
          campaignAnalysis(dataSource, row.id),
          notDialing({ dataSource, temporal }, row),
        ]);
        ctx.body = { ...view, analysis, not_dialing: reasons };
      },
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/campaign/{campaign_id}',
        operationId: 'updateCampaign',
        summary: "Change a draft or paused campaign's settings",
        description:
          'Allowed in `draft` and `paused` only. `retry_config` and `circuit_breaker` are merged over the stored ' +
          'values; `schedule_config` replaces the schedule (null removes it); `fallback_telephony_configuration_id` ' +
          'replaces the fallback with `fallback_caller_number` (null removes it; a new fallback re-arms the ' +
          "failover), and `fallback_caller_number` alone changes the current fallback's. A paused campaign receives the " +
          'change as a Temporal Update and applies it on resume; the answer comes once the workflow accepted it. ' +
          "A `max_concurrency` above the deployment's `CAMPAIGN_MAX_CONCURRENCY` answers 422.",
        tags,
        security,
        params: CampaignIdParams,
        body: UpdateCampaignRequest,
        responses: {
          200: { description: 'The campaign with the new settings', schema: Campaign },
          400: errorResponse(
            "`fallback_telephony_configuration_not_found` (also for another organization's configuration), " +
              '`fallback_caller_number_not_found`, a fallback equal to the campaign configuration, or a ' +
              '`fallback_caller_number` for a campaign without a fallback',
          ),
          404: notFound,
          409: errorResponse('Campaign can only be updated in draft or paused state'),
        },
      },
      async (ctx, { params, body, auth }) => {
        ctx.body = await updateCampaign(transitionDeps, auth, params.campaign_id, body);
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/campaign/{campaign_id}/start',
        operationId: 'startCampaign',
        summary: 'Start a draft campaign',
        description:
          'Starts the Temporal workflow `campaign-<id>` and answers once it has marked the campaign `running`. ' +
          "409 when the organization's running campaigns, with this one, would hold more calls at once (the sum " +
          "of their `max_concurrency`) than the deployment's `ORG_MAX_CALLS_IN_FLIGHT`: the detail names the limit " +
          'and what is taken; the campaign stays a draft.',
        tags,
        security,
        params: CampaignIdParams,
        responses: {
          200: { description: 'The campaign, running', schema: Campaign },
          400: errorResponse('Telephony provider not configured for this organization (or not ready)'),
          404: notFound,
          409: errorResponse(
            'The campaign is not draft (the detail names its current state), or the calls in flight limit ' +
              '(`ORG_MAX_CALLS_IN_FLIGHT`) or `CAMPAIGN_MAX_CONCURRENCY` would be passed',
          ),
        },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await startCampaign(transitionDeps, auth, params.campaign_id);
      },
    ),
    transition('pause', 'Pause a running campaign (calls in flight finish)', 'running'),
    transition('resume', 'Resume a paused campaign', 'paused'),
    transition('cancel', 'Cancel a draft, running or paused campaign', 'draft, running or paused'),
    defineRoute(
      {
        method: 'post',
        path: '/campaign/{campaign_id}/redial',
        operationId: 'redialCampaign',
        summary: 'Redial the busy, unanswered or voicemail contacts of a finished campaign',
        description:
          'For a `completed` or `cancelled` campaign, at most once: creates a draft campaign over the contacts ' +
          'whose last finished attempt ended with a selected outcome. They are copied into a new contact list ' +
          '(its `source_id`), and the two campaigns are linked by `parent_campaign_id` / `redialed_campaign_id`. ' +
          "Settings and telephony configuration are the parent's; `retry_config` is merged over the parent's.",
        tags,
        security,
        params: CampaignIdParams,
        body: RedialCampaignRequest,
        responses: {
          201: { description: 'The new draft campaign', schema: Campaign },
          400: errorResponse('No contacts match the selected redial criteria'),
          404: notFound,
          409: errorResponse(
            `The campaign is not completed or cancelled, or has already been redialed, or ${quotaBreach('campaigns', 'campaign_sources')}`,
          ),
        },
      },
      async (ctx, { params, body, auth }) => {
        const child = await redialCampaign(dataSource, auth, quotas, params.campaign_id, body);
        ctx.status = 201;
        ctx.body = await campaignViewOf(dataSource, child);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/campaign/{campaign_id}/progress',
        operationId: 'getCampaignProgress',
        summary: "A campaign's progress",
        description:
          "While running or paused, the workflow's own figures (its `campaignProgress` query); otherwise the " +
          'stored counters.',
        tags,
        security,
        params: CampaignIdParams,
        responses: { 200: { description: 'Progress', schema: CampaignProgressResponse }, 404: notFound },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await campaignProgress({ dataSource, temporal }, auth, params.campaign_id);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/campaign/{campaign_id}/runs',
        operationId: 'listCampaignRuns',
        summary: "A campaign's calls, one page at a time",
        description: 'Filters, sorting and paging as for `GET /workflow/{workflow_id}/runs`.',
        tags,
        security,
        params: CampaignIdParams,
        query: CampaignRunsQuery,
        responses: {
          200: { description: 'A page of runs', schema: WorkflowRunsPage },
          400: errorResponse('Invalid filters format'),
          404: notFound,
        },
      },
      async (ctx, { params, query, auth }) => {
        ctx.body = await campaignRunsPage(dataSource, auth, params.campaign_id, query, prices);
      },
    ),
  ];
}
