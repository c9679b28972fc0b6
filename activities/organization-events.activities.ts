import { Context, log as activityLog } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { createEmitRunAnalyzed } from '../domain/webhooks/call-analyzed';
import { createEmitCallEvent } from '../domain/webhooks/call-events';
import { createEmitCampaignEvent, type CampaignEventInput } from '../domain/webhooks/campaign-events';
import { WebhookDeliveryError, WebhookRefusedError, WebhookRejectedError } from '../domain/webhooks/delivery-errors';
import { deliveryStarter } from '../domain/webhooks/delivery-workflow';
import type { CallEventType } from '../domain/webhooks/organization-events';
import { WebhookDeliveries, type DeliveryLimits } from '../domain/webhooks/webhook-deliveries';
import { createCampaignRepository } from '../entities/repositories/campaign.repository';
import { createWebhookRepository } from '../entities/repositories/webhook.repository';
import type { Resolver } from '../platform/address-guard';
import type { Secrets } from '../telephony/secrets';

export type { CallEventType, CampaignEventInput };

export interface OrganizationEventActivityDeps {
  dataSource: DataSource;
  secrets: Secrets;
  /** Starts each delivery's workflow. */
  temporal: Client;
  /** `ALLOW_PRIVATE_WEBHOOKS`. */
  allowPrivate: boolean;
  /** `WEBHOOK_SIGNATURE_V1`. */
  signV1?: boolean;
  limits?: DeliveryLimits;
  resolve?: Resolver;
}

/** The deliveries of organization events over the activity dependencies, started on `taskQueue`. */
const webhookDeliveries = (deps: OrganizationEventActivityDeps, taskQueue?: string) =>
  new WebhookDeliveries({
    dataSource: deps.dataSource,
    secrets: deps.secrets,
    allowPrivate: deps.allowPrivate,
    signV1: deps.signV1 ?? true,
    ...(deps.limits ? { limits: deps.limits } : {}),
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
    ...(taskQueue ? { startDelivery: deliveryStarter(deps.temporal, taskQueue) } : {}),
  });

/** Deliveries run on the queue of the worker that emitted them. */
const currentQueueDeliveries = (deps: OrganizationEventActivityDeps) =>
  webhookDeliveries(deps, Context.current().info.taskQueue);

/**
 * `call.started` once a call is placed, `call.ended` once its outcome is written, emitted by those
 * steps themselves (activities/call-events.ts), so a call has no step more; run in an activity, its
 * deliveries start on that activity's task queue. A failure is logged, never the call's.
 */
export function createCallEventEmitter(deps: OrganizationEventActivityDeps) {
  const emit = createEmitCallEvent({
    runs: createWebhookRepository(deps.dataSource),
    deliveries: () => currentQueueDeliveries(deps),
  });
  return async (runId: number, type: CallEventType): Promise<void> => {
    try {
      await emit(runId, type);
    } catch (error) {
      activityLog.warn('call event not stored', { runId, type, error: String(error) });
    }
  };
}

/** Organization webhook events of campaigns, and each delivery's attempts. */
export function createOrganizationEventActivities(deps: OrganizationEventActivityDeps) {
  const emitForCampaign = createEmitCampaignEvent({
    campaigns: createCampaignRepository({ dataSource: deps.dataSource }),
    deliveries: () => currentQueueDeliveries(deps),
  });

  return {
    /** `campaign.paused` or `campaign.completed` (domain/webhooks/campaign-events.ts): how many deliveries it has. */
    async emitCampaignEvent(input: CampaignEventInput): Promise<number> {
      return await emitForCampaign(input);
    },

    /** One attempt of one delivery, logged; failures throw, typed for the retry policy. */
    async deliverOrganizationWebhook({ deliveryId }: { deliveryId: string }): Promise<number | null> {
      const { attempt } = Context.current().info;
      const outcome = await webhookDeliveries(deps).attempt(deliveryId, attempt, Context.current().cancellationSignal);
      const message = outcome.error ?? 'not delivered';
      if (outcome.status === 'refused') throw new WebhookRefusedError(message);
      if (outcome.status === 'failed') throw new WebhookRejectedError(message, outcome.statusCode ?? 0);
      if (outcome.status === 'retrying') throw new WebhookDeliveryError(message, outcome.statusCode);
      return outcome.statusCode ?? null;
    },

    /** The workflow gave up on a delivery: its status says so for good. */
    async recordOrganizationWebhookGivenUp({ deliveryId, message }: { deliveryId: string; message: string }) {
      await webhookDeliveries(deps).givenUp(deliveryId, message);
    },
  };
}

/**
 * `call_analyzed` once a run's analysis is stored, emitted by the analysis step itself
 * (activities/call-events.ts) with what it wrote: tags, typed fields, success, score, sentiment.
 * A failure is logged, never the analysis's.
 */
export function createAnalysisEventEmitter(deps: OrganizationEventActivityDeps) {
  const emit = createEmitRunAnalyzed({
    runs: createWebhookRepository(deps.dataSource),
    deliveries: () => currentQueueDeliveries(deps),
  });
  return async (runId: number, analysisId: string): Promise<void> => {
    try {
      await emit(runId, analysisId);
    } catch (error) {
      activityLog.warn('call_analyzed event not stored', { runId, analysisId, error: String(error) });
    }
  };
}
