import type { ApiDeps } from '../context';
import { defineRoute, errorResponse, type Route } from '../route';
import { WorkflowIdParams } from '../schemas/agents';
import { WebCallRequest, WebCallStarted } from '../schemas/web-calls';
import { AgentVersionCache } from '../../domain/agents/version-cache';
import { agentById, callableVersion } from '../../domain/calls/call-targets';
import { startWebCall } from '../../domain/calls/start-web-call';
import { loadSecrets } from '../../telephony/secrets';

export function createWebCallRoutes(deps: ApiDeps): Route[] {
  const { dataSource, temporal, config } = deps;
  const versions = new AgentVersionCache(dataSource);
  const secrets = loadSecrets(config);
  return [
    defineRoute(
      {
        method: 'post',
        path: '/workflow/{workflow_id}/web-call',
        operationId: 'startWebCall',
        summary: 'Talk to an agent from a browser',
        description:
          'Creates a run (provider `web`) that goes through the call workflow like any call (recorded, analysed, ' +
          'counted in usage) and answers a token bound to it, the page to open and its signalling WebSocket. The ' +
          'token is single use and expires after 30 s if the call has not started; the run then ends as `no-answer`.',
        tags: ['calls'],
        security: ['ApiKey', 'SessionToken'],
        params: WorkflowIdParams,
        body: WebCallRequest,
        responses: {
          200: { description: 'The web call is waiting for its browser', schema: WebCallStarted },
          404: errorResponse('Workflow with id {workflow_id} not found'),
          409: errorResponse('Agent is archived'),
        },
      },
      async (ctx, { params, body, auth }) => {
        const agent = await agentById(dataSource, auth.organizationId, params.workflow_id);
        const version = await callableVersion(versions, agent);
        ctx.body = await startWebCall(
          {
            dataSource,
            temporal,
            taskQueue: config.TEMPORAL_TASK_QUEUE,
            publicBaseUrl: config.PUBLIC_BASE_URL,
            secrets,
          },
          agent,
          version,
          body.initial_context ?? {},
        );
      },
    ),
  ];
}
