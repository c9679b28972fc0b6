import { signalCallStatus, signalTransferStatus } from '../../domain/calls/call-status-signal';
import { ProviderRuns } from '../../domain/calls/provider-runs';
import type { ApiDeps, AppState } from '../context';
import { ForbiddenError } from '../errors';
import { withSignedCallerTrace } from '../middleware/trace-request';
import { InvalidError } from '../../domain/errors';
import { defineRoute, errorResponse, type Route } from '../route';
import { providerEvent, viaProvider, webhookRequest } from '../webhook-request';
import { StatusWebhookParams, WebhookReceived } from '../schemas/calls';
import { providerWebhookBody } from '../schemas/webhooks';
import { createTelephonyServices } from '../../domain/telephony/telephony-services';
import { answerUrls } from '../../telephony/inbound';
import { z } from '../zod';

const RECEIVED = { status: 'received' as const };

const TransferMarkup = z.string().openapi({
  description:
    'Plivo or Vobiz XML: the dial of the destination, its hold music, the announcement, or what follows the dial.',
  example: '<Response><Play loop="0">https://switchboard.example.com/api/v1/telephony/hold-audio.wav</Play></Response>',
});

export function createTelephonyWebhookRoutes(deps: ApiDeps): Route[] {
  const { dataSource, temporal, config } = deps;
  const telephony = createTelephonyServices(deps);
  const providerRuns = new ProviderRuns(dataSource);

  /**
   * The run a provider webhook names and its adapter, once the signature is checked (403 otherwise);
   * null, logged, for an unknown or finished run, which the provider is answered 200 for.
   */
  const verifiedTarget = async (
    ctx: Parameters<typeof webhookRequest>[0] & { state: AppState; body: unknown },
    params: { provider: string; run_id: number },
    kind: 'status' | 'transfer',
  ) => {
    const log = ctx.state.log.child({ provider: params.provider, runId: params.run_id });
    ctx.body = RECEIVED;
    const run = await providerRuns.webhookTarget(params.run_id, params.provider);
    if (!run) {
      log.warn(`${kind} webhook for an unknown run: ignored`);
      return null;
    }
    const adapter = telephony.adapterFor(run.configuration);
    const request = webhookRequest(ctx, config.PUBLIC_BASE_URL);
    if (!(await adapter.verifyWebhook(request))) throw new ForbiddenError('Invalid signature');
    if (run.is_completed) {
      log.info(`${kind} webhook for a finished run: ignored`);
      return null;
    }
    return { run, adapter, request, log };
  };

  return [
    defineRoute(
      {
        method: 'post',
        path: '/telephony/{provider}/status/{run_id}',
        operationId: 'receiveCallStatus',
        summary: "A provider's call status webhook",
        description:
          "No credentials: the provider's signature, checked with the run's telephony configuration, is the " +
          'authentication (403 otherwise). The status is signalled to the call workflow; repeats and late ' +
          'events change nothing. Events for unknown or finished runs answer 200 and are logged.',
        tags: ['telephony'],
        security: [],
        params: StatusWebhookParams,
        providerBody: providerWebhookBody,
        responses: {
          200: { description: 'Accepted (or ignored and logged)', schema: WebhookReceived },
          400: errorResponse('The payload is not a status event'),
          403: errorResponse('Invalid signature'),
        },
      },
      async (ctx, { params }) => {
        const target = await verifiedTarget(ctx, params, 'status');
        if (!target) return;
        const { run, adapter, request, log } = target;
        const event = providerEvent(() => adapter.parseStatusWebhook(request));
        const signalled = await withSignedCallerTrace(ctx, 'ProviderWebhook:callStatus', () =>
          signalCallStatus(
            temporal,
            { id: run.id, temporalWorkflowId: run.temporal_workflow_id },
            {
              status: event.status,
              providerCallId: event.providerCallId,
              durationSeconds: event.durationSeconds,
              ...(event.answeredBy ? { answeredBy: event.answeredBy } : {}),
            },
          ),
        );
        if (!signalled) log.info('status webhook for a closed call workflow: ignored');
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/telephony/{provider}/transfer/{run_id}',
        operationId: 'receiveTransferStatus',
        summary: "A provider's call transfer webhook",
        description:
          "No credentials: the provider's signature, checked with the run's telephony configuration, is the " +
          'authentication (403 otherwise). The transfer event (ringing, answered, busy, no-answer, failed, ' +
          'canceled) is signalled to the call workflow. Events for unknown or finished runs answer 200 and are logged. ' +
          "Providers that fetch the transfer's call instructions here (Plivo and Vobiz: the dial, its hold music, " +
          "the warm announcement, the dial's result; Cloudonix: the dial's result) are answered with that XML. " +
          "On Telnyx, a warm transfer's leg events carry it on: the announcement is spoken once the person " +
          'answers, and they are bridged with the caller once it ended.',
        tags: ['telephony'],
        security: [],
        params: StatusWebhookParams,
        providerBody: providerWebhookBody,
        responses: {
          200: {
            description: "Accepted (or ignored and logged), or the provider's call instructions",
            schema: WebhookReceived,
            otherContent: { 'text/xml': TransferMarkup },
          },
          400: errorResponse('The payload is not a transfer event, or the provider has no transfers'),
          403: errorResponse('Invalid signature'),
          502: errorResponse('The provider refused a command the transfer event called for'),
        },
      },
      async (ctx, { params }) => {
        const target = await verifiedTarget(ctx, params, 'transfer');
        if (!target) return;
        const { run, adapter, request, log } = target;
        if (!adapter.transfer) throw new InvalidError(`${params.provider} calls are not transferred`);
        const { transfer } = adapter;
        const parsed = providerEvent(() => transfer.parseWebhook(request));
        const caller = {
          runId: run.id,
          providerCallId: run.provider_call_id ?? '',
          ...answerUrls(config.PUBLIC_BASE_URL, params.provider, run.id, telephony.secrets),
        };
        // Telnyx's warm transfer takes its next step on the leg's events; other providers need none.
        const event = await viaProvider(
          () => transfer.advance?.(parsed, caller.providerCallId) ?? Promise.resolve(parsed),
        );
        const markup = transfer.markup?.(request, caller) ?? null;
        if (markup) {
          ctx.type = markup.contentType;
          ctx.body = markup.body;
        }
        const signalled = await withSignedCallerTrace(ctx, 'ProviderWebhook:transferStatus', () =>
          signalTransferStatus(
            temporal,
            { id: run.id, temporalWorkflowId: run.temporal_workflow_id },
            { status: event.status, ...(event.transferId ? { transferId: event.transferId } : {}) },
          ),
        );
        if (!signalled) log.info('transfer webhook for a closed call workflow: ignored');
      },
    ),
  ];
}
