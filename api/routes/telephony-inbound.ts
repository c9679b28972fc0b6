import type { TelephonyConfiguration } from '../../entities';
import { maskPhoneNumber } from '../../platform/log-redaction';
import { openCredentials } from '../../telephony/credentials';
import { ACKNOWLEDGED, answerUrls } from '../../telephony/inbound';
import type { ProviderReply } from '../../telephony/provider';
import { simulatorConfigSchema } from '../../telephony/providers/simulator/config';
import { ringSimulatorNumber } from '../../telephony/providers/simulator/inbound';
import { jsonObjectBody } from '../../telephony/status-fields';
import type { ApiDeps } from '../context';
import { ForbiddenError } from '../errors';
import { NotFoundError } from '../../domain/errors';
import { defineRoute, errorResponse, type Route, type RouteContext } from '../route';
import { providerEvent, viaProvider, webhookRequest } from '../webhook-request';
import { StatusWebhookParams, WebhookReceived } from '../schemas/calls';
import { ProviderJsonReply, providerWebhookBody, vonageWebhookBody } from '../schemas/webhooks';
import { signalCallStatus } from '../../domain/calls/call-status-signal';
import { acceptInboundCall, findCalledNumber, inboundAddress } from '../../domain/calls/inbound';
import { ProviderRuns } from '../../domain/calls/provider-runs';
import { createTelephonyServices } from '../../domain/telephony/telephony-services';
import { z } from '../zod';

const ProviderParams = z.object({ provider: z.string().openapi({ example: 'twilio' }) });

const Markup = z.string().openapi({
  description:
    "The provider's call instructions: TwiML or cXML (`text/xml`), Plivo/Vobiz XML, a Vonage NCCO or the " +
    'simulator\'s JSON; `{"status": "received"}` where answering takes call-control commands (Telnyx).',
  example:
    '<Response><Connect><Stream url="wss://switchboard.example.com/api/v1/telephony/twilio/media/501?token=' +
    'eyJydW4iOjUwMX0.c2lnbmF0dXJl"><Parameter name="run_id" value="501"/></Stream></Connect><Hangup/></Response>',
});

const RingRequest = z
  .object({
    to: z.string().min(1).openapi({ description: 'One of your numbers on a simulator configuration.' }),
    from: z.string().min(1).nullish().openapi({ description: "The caller's number.", example: '+14155550199' }),
  })
  .openapi('SimulatorRingRequest', { example: { to: '+14155550123', from: '+14155550199' } });

const RingResult = z
  .object({
    call_id: z.string(),
    answered: z.boolean(),
    workflow_run_id: z.number().int().nullable(),
  })
  .openapi('SimulatorRingResult', {
    example: { call_id: 'SIM8c1f0e2d4b6a49f3a7e5d9c0b2f4a6e8', answered: true, workflow_run_id: 502 },
  });

const send = (ctx: RouteContext, reply: ProviderReply): void => {
  ctx.type = reply.contentType;
  ctx.body = reply.body;
};

export function createTelephonyInboundRoutes(deps: ApiDeps): Route[] {
  const { dataSource, temporal, config } = deps;
  const telephony = createTelephonyServices(deps);
  const providerRuns = new ProviderRuns(dataSource);
  const inboundDeps = {
    dataSource,
    temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    secrets: telephony.secrets,
    adapterFor: (row: TelephonyConfiguration) => telephony.adapterFor(row),
  };
  const offered = (provider: string) => {
    const definition = telephony.providers.find((candidate) => candidate.name === provider);
    if (!definition) throw new NotFoundError('Unknown telephony provider');
    return definition;
  };

  /** The run a provider asks instructions for, with its configuration's adapter; 404 for anything else. */
  const runOf = async (provider: string, runId: number) => {
    const found = await providerRuns.withConfiguration(provider, runId);
    if (!found) throw new NotFoundError('Run not found');
    return { run: found.run, adapter: telephony.adapterFor(found.configuration) };
  };

  const answer = async (ctx: RouteContext, { params }: { params: { provider: string; run_id: number } }) => {
    offered(params.provider);
    const { run, adapter } = await runOf(params.provider, params.run_id);
    const request = webhookRequest(ctx, config.PUBLIC_BASE_URL);
    const verified = adapter.verifyAnswerWebhook
      ? await adapter.verifyAnswerWebhook(request, run.providerCallId)
      : await adapter.verifyWebhook(request);
    if (!verified) throw new ForbiddenError('Invalid signature');
    const providerCallId = run.providerCallId ?? '';
    if (run.isCompleted) {
      send(ctx, await adapter.rejectCall(providerCallId));
      return;
    }
    const target = {
      runId: run.id,
      providerCallId,
      ...answerUrls(config.PUBLIC_BASE_URL, params.provider, run.id, telephony.secrets),
    };
    send(ctx, await viaProvider(() => adapter.answerCall(target)));
  };

  const answerRoute = (method: 'get' | 'post') =>
    defineRoute(
      {
        method,
        path: '/telephony/{provider}/answer/{run_id}',
        operationId: method === 'get' ? 'answerCallByGet' : 'answerCall',
        summary: "A provider's answer URL for an outbound call",
        description:
          'Where Twilio, Plivo, Vobiz and Vonage (`answer_url`) fetch instructions when the callee answers: the ' +
          "stream markup pointing the call's media at `/telephony/{provider}/media/{run_id}`. No credentials: the " +
          "provider's signature, checked with the run's configuration, is the authentication (403 otherwise); " +
          "Vonage's must also name the run's call (`uuid`) and a token not used before. A " +
          'finished run gets the polite reject.',
        tags: ['telephony'],
        security: [],
        params: StatusWebhookParams,
        ...(method === 'post' ? { providerBody: providerWebhookBody } : {}),
        responses: {
          200: {
            description: 'Call instructions',
            schema: Markup,
            contentType: 'text/xml',
            otherContent: { 'application/json': ProviderJsonReply },
          },
          403: errorResponse('Invalid signature'),
          404: errorResponse('Unknown provider or run'),
          502: errorResponse('The provider refused the answer command'),
        },
      },
      answer,
    );

  return [
    defineRoute(
      {
        method: 'post',
        path: '/telephony/{provider}/inbound',
        operationId: 'receiveInboundCall',
        summary: "A provider's inbound call webhook",
        description:
          "Configure this URL as the number's voice/answer URL at the provider (phone-number binding does it " +
          "where the provider allows). No credentials: the signature, checked with the called number's " +
          'configuration, is the authentication (403 otherwise). A number bound to an agent gets an inbound run, ' +
          "its call workflow, and the provider's markup streaming the call to `/telephony/{provider}/media/{run_id}` " +
          '(where the voice pipeline conducts the conversation). Unknown, inactive or unbound numbers get the polite reject.',
        tags: ['telephony'],
        security: [],
        params: ProviderParams,
        providerBody: providerWebhookBody,
        responses: {
          200: {
            description: 'Call instructions, or the polite reject',
            schema: Markup,
            contentType: 'text/xml',
            otherContent: { 'application/json': ProviderJsonReply },
          },
          400: errorResponse('The payload is not an inbound call'),
          403: errorResponse('Invalid signature'),
          404: errorResponse('Unknown provider, or one that sends no inbound webhook (ARI)'),
          502: errorResponse('The provider refused the answer command'),
        },
      },
      async (ctx, { params }) => {
        const definition = offered(params.provider);
        if (definition.name === 'ari') {
          throw new NotFoundError('Asterisk reports inbound calls over its events WebSocket, not this webhook');
        }
        const log = ctx.state.log.child({ provider: params.provider });
        const request = webhookRequest(ctx, config.PUBLIC_BASE_URL);
        const call = providerEvent(() => definition.inbound.parse(request));
        if (!call) {
          send(ctx, ACKNOWLEDGED);
          return;
        }
        const called = await findCalledNumber(inboundDeps, definition.name, call, request);
        if (called === 'forbidden') throw new ForbiddenError('Invalid signature');
        if (called === 'unknown') {
          log.info({ calledNumber: maskPhoneNumber(call.calledNumber) }, 'inbound call to an unknown number: refused');
          send(ctx, definition.inbound.refuseUnknown());
          return;
        }
        const outcome = await viaProvider(() => acceptInboundCall(inboundDeps, called, call));
        if (outcome.answered) log.info({ runId: outcome.runId }, 'inbound call answered');
        else log.info({ numberId: called.number.id, reason: outcome.reason }, 'inbound call refused');
        send(ctx, outcome.reply);
      },
    ),
    answerRoute('post'),
    answerRoute('get'),
    defineRoute(
      {
        method: 'post',
        path: '/telephony/vonage/events',
        operationId: 'receiveVonageEvent',
        summary: "Vonage's application event webhook",
        description:
          "Where the Vonage application's `event_url` points (set when a number is bound): the events of inbound " +
          "calls, matched to their run by the call's `uuid`. Verified with the run's configuration (403 " +
          'otherwise), then signalled like status webhooks; events of unknown calls or legs answer 200 and are logged.',
        tags: ['telephony'],
        security: [],
        providerBody: vonageWebhookBody,
        responses: {
          200: { description: 'Accepted (or ignored and logged)', schema: WebhookReceived },
          400: errorResponse('The payload is not a status event'),
          403: errorResponse('Invalid signature'),
          404: errorResponse("Run not found: the call's telephony configuration was deleted"),
        },
      },
      async (ctx) => {
        offered('vonage');
        ctx.body = { status: 'received' };
        const request = webhookRequest(ctx, config.PUBLIC_BASE_URL);
        const uuid = providerEvent(() => jsonObjectBody(request.rawBody, 'Vonage')).uuid;
        const run = typeof uuid === 'string' && uuid ? await providerRuns.byProviderCall('vonage', uuid) : null;
        if (!run) {
          ctx.state.log.info({ uuid }, 'Vonage event for an unknown call: ignored');
          return;
        }
        const { adapter } = await runOf('vonage', run.id);
        if (!(await adapter.verifyWebhook(request))) throw new ForbiddenError('Invalid signature');
        if (run.isCompleted) return;
        const event = providerEvent(() => adapter.parseStatusWebhook(request));
        await signalCallStatus(temporal, run, {
          status: event.status,
          providerCallId: event.providerCallId,
          durationSeconds: event.durationSeconds,
        });
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/telephony/simulator/ring',
        operationId: 'ringSimulator',
        summary: 'Make the simulator ring one of your numbers',
        description:
          'The simulator places an inbound call to one of your numbers on a simulator configuration: it posts its ' +
          'signed webhook to `/telephony/simulator/inbound` (through `PUBLIC_BASE_URL`) and, when answered, ' +
          "sends the call's status events (answered, then completed after `talk_seconds`) to the run's status URL. " +
          'Only while `TELEPHONY_SIMULATOR` is on.',
        tags: ['telephony'],
        security: ['ApiKey', 'SessionToken'],
        body: RingRequest,
        responses: {
          200: { description: 'The simulator rang the number', schema: RingResult },
          404: errorResponse('Simulator disabled, or no such number on a simulator configuration'),
          502: errorResponse('The inbound webhook did not answer with simulator markup'),
        },
      },
      async (ctx, { body, auth }) => {
        offered('simulator');
        const address = inboundAddress(body.to);
        const called = await providerRuns.simulatorNumber(auth.organizationId, address);
        if (!called) throw new NotFoundError('Phone number not found on a simulator configuration');
        const { configuration } = called;
        const simulator = simulatorConfigSchema.parse(openCredentials(configuration.credentials, telephony.secrets));
        const rung = await viaProvider(() =>
          ringSimulatorNumber(
            { dataSource, secrets: telephony.secrets, config: simulator },
            {
              to: address,
              from: body.from ? inboundAddress(body.from) : null,
              inboundUrl: telephony.inboundUrl('simulator'),
            },
          ),
        );
        const run = rung.answered ? await providerRuns.byProviderCall('simulator', rung.callId) : null;
        ctx.body = { call_id: rung.callId, answered: rung.answered, workflow_run_id: run?.id ?? null };
      },
    ),
  ];
}
