import type { Agent } from '../../entities';
import type { ApiDeps } from '../context';
import { defineRoute, errorResponse, type Route, type RouteContext } from '../route';
import { AgentUuidParams, CallInitiated, CallRequest, TriggerPathParams } from '../schemas/calls';
import { ErrorBody, text, ValidationErrorBody } from '../schemas/common';
import { WorkflowRunParams } from '../schemas/runs';
import { z } from '../zod';
import { AgentVersionCache } from '../../domain/agents/version-cache';
import { agentByTriggerPath, agentByUuid, callableVersion, callRoute } from '../../domain/calls/call-targets';
import { idempotencyKeyOf, requestHash, withIdempotencyKey } from '../../domain/calls/idempotency';
import { startOutboundCall } from '../../domain/calls/start-call';
import { dialRulesFrom } from '../../domain/compliance/dial-rules';
import { runTranscript } from '../../domain/runs/run-artifacts';
import { createTelephonyServices } from '../../domain/telephony/telephony-services';

const callResponses = (notFound: string) => ({
  200: { description: 'The call was started', schema: CallInitiated },
  400: errorResponse('Telephony provider not configured for this organization (or not ready)'),
  404: errorResponse(`${notFound}; or the telephony configuration or phone number is unknown`),
  409: errorResponse('Agent is archived; or the first request with this Idempotency-Key is in flight'),
  422: {
    description:
      "The number is on the organization's do-not-call list (`{detail}` a sentence), or the request is invalid " +
      '(`detail` one `{loc, msg, type}` per problem)',
    schema: z.union([ErrorBody, ValidationErrorBody]),
    example: { detail: "+14155550100 is on this organization's do-not-call list; the call was not placed" },
  },
  429: errorResponse(
    'The number has reached a frequency cap (DIAL_CAP_PER_DAY, DIAL_CAP_PER_WEEK); Retry-After says when it may be called',
  ),
});

/** Documented and checked here; the idempotency service reads it. */
const IdempotencyHeaders = z.object({
  'Idempotency-Key': text(255).optional().openapi({
    description: 'Makes retries safe: the same key with the same body within 24 hours answers the first response.',
    example: '5f0c2a7e-0d7b-4d6e-9f7e-2b1c3a4d5e6f',
  }),
});

const IDEMPOTENCY_NOTE =
  ' Send `Idempotency-Key` to make retries safe: the same key with the same body within 24 hours ' +
  'answers the first response and places no call; with a different body, 422.';

export function createCallRoutes(deps: ApiDeps): Route[] {
  const { dataSource, temporal, config } = deps;
  const telephony = createTelephonyServices(deps);
  const versions = new AgentVersionCache(dataSource);
  const dialRules = dialRulesFrom(config);

  const placeCall = async (
    ctx: RouteContext,
    organizationId: number,
    route: string,
    body: CallRequest,
    agent: () => Promise<Agent>,
  ) =>
    withIdempotencyKey(
      dataSource,
      { organizationId, key: idempotencyKeyOf(ctx.headers['idempotency-key']), hash: requestHash(route, body) },
      async (starting) => {
        const found = await agent();
        const version = await callableVersion(versions, found);
        const target = await callRoute(dataSource, telephony, organizationId, {
          telephonyConfigurationId: body.telephony_configuration_id,
          fromPhoneNumberId: body.from_phone_number_id,
        });
        return startOutboundCall(
          { dataSource, temporal, taskQueue: config.TEMPORAL_TASK_QUEUE, dialRules },
          {
            agent: found,
            version,
            route: target,
            phoneNumber: body.phone_number,
            initialContext: body.initial_context ?? {},
          },
          starting,
        );
      },
    );

  return [
    defineRoute(
      {
        method: 'post',
        path: '/public/agent/{uuid}',
        operationId: 'callByTriggerPath',
        summary: "Call a number with an agent, by the agent's API trigger path",
        description: 'Only trigger paths: an Agent UUID here answers 404.' + IDEMPOTENCY_NOTE,
        tags: ['calls'],
        security: ['ApiKey'],
        params: TriggerPathParams,
        headers: IdempotencyHeaders,
        body: CallRequest,
        responses: callResponses('Agent trigger not found'),
      },
      async (ctx, { params, body, auth }) => {
        ctx.body = await placeCall(ctx, auth.organizationId, `trigger:${params.uuid.toLowerCase()}`, body, () =>
          agentByTriggerPath(dataSource, auth.organizationId, params.uuid),
        );
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/public/agent/workflow/{workflow_uuid}',
        operationId: 'callByAgentUuid',
        summary: 'Call a number with an agent, by its Agent UUID',
        description: 'Only Agent UUIDs: a trigger path here answers 404.' + IDEMPOTENCY_NOTE,
        tags: ['calls'],
        security: ['ApiKey'],
        params: AgentUuidParams,
        headers: IdempotencyHeaders,
        body: CallRequest,
        responses: callResponses('Workflow not found'),
      },
      async (ctx, { params, body, auth }) => {
        ctx.body = await placeCall(ctx, auth.organizationId, `agent:${params.workflow_uuid.toLowerCase()}`, body, () =>
          agentByUuid(dataSource, auth.organizationId, params.workflow_uuid),
        );
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/workflow/{workflow_id}/runs/{run_id}/transcript',
        operationId: 'getRunTranscript',
        summary: "A run's transcript",
        description: 'One line per utterance: `[timestamp] user|assistant: text`. Empty until the call has ended.',
        tags: ['runs'],
        security: ['ApiKey', 'SessionToken'],
        params: WorkflowRunParams,
        responses: {
          200: {
            description: 'The transcript',
            schema: z.string(),
            contentType: 'text/plain',
            example:
              '[2026-03-02T15:04:10.000Z] assistant: Hello Ada, this is a reminder of your appointment tomorrow.\n' +
              '[2026-03-02T15:04:15.000Z] user: Hi, yes, that still suits me.\n',
          },
          404: errorResponse('Workflow run not found'),
        },
      },
      async (ctx, { params, auth }) => {
        const transcript = await runTranscript(dataSource, auth, params.workflow_id, params.run_id);
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = transcript;
      },
    ),
  ];
}
