import type { ApiDeps } from '../context';
import { defineRoute, errorResponse, type Route } from '../route';
import { UsageRunsPage, UsageRunsQuery } from '../schemas/runs';
import { usageRunsPage } from '../../domain/runs/run-queries';
import { ANALYSIS_FILTERS_NOTE } from './agent-runs';

export function createUsageRoutes({ dataSource, config }: ApiDeps): Route[] {
  const prices = { perMinuteUsd: config.PRICE_PER_MINUTE_USD, per1kTokensUsd: config.PRICE_PER_1K_TOKENS_USD };
  return [
    defineRoute(
      {
        method: 'get',
        path: '/organizations/usage/runs',
        operationId: 'listUsageRuns',
        summary: "The organization's runs with duration, tokens and charge, newest first",
        description:
          'Dates filter only through `start_date` and `end_date`. Filter attributes: `runId`, `workflowId`, ' +
          '`campaignId` (number, `{value}`, exact), `callerNumber`, `calledNumber` (text, `{value}`, substring of ' +
          '`initial_context.caller_number` / `called_number`), `dispositionCode` (multiSelect, `{codes}`, any of ' +
          '`gathered_context.mapped_call_disposition`), `duration` (numberRange, `{min, max}` seconds, inclusive). ' +
          'A `dateRange` or `status` filter is not applied here, but a malformed value of one answers 422 as on ' +
          'the agent run list.' +
          ANALYSIS_FILTERS_NOTE +
          ' ' +
          '`charge_usd` = minutes × PRICE_PER_MINUTE_USD + tokens / 1000 × PRICE_PER_1K_TOKENS_USD.',
        tags: ['usage'],
        security: ['ApiKey', 'SessionToken'],
        query: UsageRunsQuery,
        responses: {
          200: { description: 'A page of runs and the totals of every matching run', schema: UsageRunsPage },
          400: errorResponse('Invalid filters format'),
        },
      },
      async (ctx, { query, auth }) => {
        ctx.body = await usageRunsPage(dataSource, auth, query, prices);
      },
    ),
  ];
}
