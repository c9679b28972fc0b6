import type { ApiDeps } from '../context';
import { defineRoute, errorResponse, type Route } from '../route';
import { WorkflowIdParams } from '../schemas/agents';
import {
  AnalysisRerunHeaders,
  AnalysisRerunResponse,
  RunIdParams,
  WorkflowRunDetail,
  WorkflowRunParams,
  WorkflowRunsPage,
  WorkflowRunsQuery,
} from '../schemas/runs';
import { rerunAnalysis } from '../../domain/analysis/rerun';
import { idempotencyKeyOf } from '../../domain/calls/idempotency';
import { workflowRunDetail, workflowRunsPage } from '../../domain/runs/run-queries';

/** The analysis filters, as both runs lists describe them. */
export const ANALYSIS_FILTERS_NOTE =
  ' Post-call analysis (docs/guides/post-call-analysis.md): `analysisTags` (multiSelect, `{tags}`, all present), ' +
  '`analysisSentiment` (multiSelect, `{sentiments}`, any of), `analysisSuccess` (radio, `{successful}`), ' +
  '`analysisScore` (numberRange, `{min?, max?}` on the 1 to 10 score, inclusive), `analysisField` ' +
  "(analysisField, `{name, equals?, min?, max?}` on a typed field's value).";

export function createAgentRunRoutes({ dataSource, config, temporal }: ApiDeps): Route[] {
  const prices = { perMinuteUsd: config.PRICE_PER_MINUTE_USD, per1kTokensUsd: config.PRICE_PER_1K_TOKENS_USD };
  return [
    defineRoute(
      {
        method: 'get',
        path: '/workflow/{workflow_id}/runs',
        operationId: 'listAgentRuns',
        summary: "An agent's runs (test and live calls), one page at a time",
        description:
          'Filter attributes: `dateRange` (dateRange, `{from?, to?}` inclusive), `dispositionCode` (multiSelect, ' +
          '`{codes}`), `duration` (numberRange, `{min?, max?}` seconds inclusive), `status` (radio, ' +
          '`{status: completed|in_progress}`), `runId` and `campaignId` (number, `{value}`), `callerNumber` and ' +
          '`calledNumber` (text, `{value}`, substring).' +
          ANALYSIS_FILTERS_NOTE,
        tags: ['runs'],
        security: ['ApiKey', 'SessionToken'],
        params: WorkflowIdParams,
        query: WorkflowRunsQuery,
        responses: {
          200: { description: 'A page of runs', schema: WorkflowRunsPage },
          400: errorResponse('Invalid filters format'),
          404: errorResponse('Workflow with id {workflow_id} not found'),
        },
      },
      async (ctx, { params, query, auth }) => {
        ctx.body = await workflowRunsPage(dataSource, auth, params.workflow_id, query, prices);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/workflow/{workflow_id}/runs/{run_id}',
        operationId: 'getAgentRun',
        summary: 'One run of an agent',
        description:
          "One run (call) of the agent, with its context, logs, cost and disposition. 404 when the run is not the agent's or the agent is another organization's.",
        tags: ['runs'],
        security: ['ApiKey', 'SessionToken'],
        params: WorkflowRunParams,
        responses: {
          200: { description: 'The run', schema: WorkflowRunDetail },
          404: errorResponse('Workflow run not found'),
        },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await workflowRunDetail(dataSource, auth, params.workflow_id, params.run_id, prices);
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/workflow-run/{run_id}/analysis',
        operationId: 'rerunRunAnalysis',
        summary: "Analyse a finished run again with its agent's current QA nodes",
        description:
          "Starts the analysis in the background and answers 202; the results replace the run's `annotations` " +
          '(`qa_<node id>`, `tags`, `analysis`, `analysis_run`) and the previous ones move to its history of ' +
          'analyses. Send `Idempotency-Key` to make retries safe: the same key names the same rerun.',
        tags: ['runs'],
        security: ['ApiKey', 'SessionToken'],
        params: RunIdParams,
        headers: AnalysisRerunHeaders,
        responses: {
          202: { description: 'The rerun is under way', schema: AnalysisRerunResponse },
          404: errorResponse('Workflow run not found'),
          409: errorResponse("The run's agent has no enabled QA node to analyse it with"),
        },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await rerunAnalysis(
          { dataSource, temporal, taskQueue: config.TEMPORAL_TASK_QUEUE },
          auth,
          params.run_id,
          idempotencyKeyOf(ctx.headers['idempotency-key']),
        );
        ctx.status = 202;
      },
    ),
  ];
}
