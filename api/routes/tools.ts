import { ConflictError } from '../../domain/errors';
import { quotaBreach } from '../../domain/quotas';
import { ToolRunner, type ToolRunnerDeps } from '../../domain/tools/tool-runner';
import { ToolsService } from '../../domain/tools/tools';
import { createToolRunnerDeps } from '../../domain/tools/tool-runner-deps';
import { loadSecrets } from '../../telephony/secrets';
import type { ApiDeps } from '../context';
import { defineRoute, errorResponse, type Route } from '../route';
import {
  ToolList,
  ToolListQuery,
  ToolParams,
  ToolRequest,
  ToolResponse,
  ToolTestRequest,
  ToolTestResponse,
} from '../schemas/tools';

const BASE = '/tools';
const security = ['ApiKey', 'SessionToken'] as const;
const tags = ['tools'];
const NOT_FOUND = 'Tool not found in this organization';

/** The organization's tools: what agent nodes offer the language model by `tool_uuids`. */
export function createToolRoutes({ config, dataSource }: ApiDeps, runnerDeps?: Partial<ToolRunnerDeps>): Route[] {
  const deps: ToolRunnerDeps = {
    ...createToolRunnerDeps({ dataSource, secrets: loadSecrets(config), config }),
    ...runnerDeps,
  };
  const tools = new ToolsService({
    dataSource,
    config,
    resolve: deps.policy.resolve,
  });

  return [
    defineRoute(
      {
        method: 'get',
        path: BASE,
        operationId: 'listTools',
        summary: "The organization's tools",
        description: 'Newest first, archived ones included unless `status` filters them out.',
        tags,
        security,
        query: ToolListQuery,
        responses: { 200: { description: 'The tools', schema: ToolList } },
      },
      async (ctx, { query, auth }) => {
        ctx.body = { tools: await tools.list(auth.organizationId, query) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: BASE,
        operationId: 'createTool',
        summary: 'Create a tool',
        description:
          'An HTTP request the model can make (`http_api`), a way to end the call (`end_call`) or a calculator. ' +
          "An HTTP tool's host must not be a private, loopback or metadata address (unless the service allows " +
          'private webhooks), and its credential must belong to the organization; both are 422 otherwise.',
        tags,
        security,
        body: ToolRequest,
        responses: {
          201: { description: 'Created', schema: ToolResponse },
          409: errorResponse(quotaBreach('tools')),
        },
      },
      async (ctx, { body, auth }) => {
        ctx.status = 201;
        ctx.body = await tools.create(auth.organizationId, body);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: `${BASE}/{tool_uuid}`,
        operationId: 'getTool',
        summary: 'One tool',
        description: 'Archived tools too.',
        tags,
        security,
        params: ToolParams,
        responses: { 200: { description: 'The tool', schema: ToolResponse }, 404: errorResponse(NOT_FOUND) },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await tools.get(auth.organizationId, params.tool_uuid);
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: `${BASE}/{tool_uuid}`,
        operationId: 'updateTool',
        summary: 'Replace a tool',
        description:
          'The whole tool is replaced, with the same checks as creating one. Calls already in progress keep the ' +
          'tool as it was when they started; an archived tool must be unarchived first (409).',
        tags,
        security,
        params: ToolParams,
        body: ToolRequest,
        responses: {
          200: { description: 'Replaced', schema: ToolResponse },
          404: errorResponse(NOT_FOUND),
          409: errorResponse('The tool is archived'),
        },
      },
      async (ctx, { params, body, auth }) => {
        ctx.body = await tools.update(auth.organizationId, params.tool_uuid, body);
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: `${BASE}/{tool_uuid}`,
        operationId: 'archiveTool',
        summary: 'Archive a tool',
        description:
          'The tool stays stored (runs name it) but is no longer offered to the model; agents that still ' +
          'reference it cannot be saved or published until the reference is removed or the tool unarchived.',
        tags,
        security,
        params: ToolParams,
        responses: { 200: { description: 'Archived', schema: ToolResponse }, 404: errorResponse(NOT_FOUND) },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await tools.setStatus(auth.organizationId, params.tool_uuid, 'archived');
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: `${BASE}/{tool_uuid}/unarchive`,
        operationId: 'unarchiveTool',
        summary: 'Unarchive a tool',
        description: 'It can be offered to the model again.',
        tags,
        security,
        params: ToolParams,
        responses: { 200: { description: 'Active again', schema: ToolResponse }, 404: errorResponse(NOT_FOUND) },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await tools.setStatus(auth.organizationId, params.tool_uuid, 'active');
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: `${BASE}/{tool_uuid}/test`,
        operationId: 'testTool',
        summary: 'Run an HTTP tool once',
        description:
          'Sends the request the tool would send with the given arguments and contexts, through the same ' +
          'address guard, credential, `Idempotency-Key` and signature as during a call, and answers what was ' +
          "sent (the credential's values masked), what came back and what the model would be told. Only " +
          '`http_api` tools can be tested (409 otherwise).',
        tags,
        security,
        params: ToolParams,
        body: ToolTestRequest,
        responses: {
          200: { description: 'The exchange', schema: ToolTestResponse },
          404: errorResponse(NOT_FOUND),
          409: errorResponse('The tool is not an http_api tool'),
        },
      },
      async (ctx, { params, body, auth }) => {
        const tool = await tools.get(auth.organizationId, params.tool_uuid);
        if (tool.definition.type !== 'http_api') {
          throw new ConflictError(`Only http_api tools can be tested; this one is ${tool.definition.type}`);
        }
        const runner = new ToolRunner(deps, auth.organizationId);
        ctx.body = await runner.exchange(
          tool.definition.config,
          body.arguments,
          { initialContext: body.initial_context, gatheredContext: body.gathered_context },
          `test-${tool.tool_uuid}-${Date.now()}`,
        );
      },
    ),
  ];
}
