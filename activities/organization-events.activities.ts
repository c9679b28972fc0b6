import { createHash } from 'node:crypto';
import { Context, log as activityLog } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { emitCallAnalyzed } from '../domain/webhooks/call-analyzed';
import { deliveryStarter } from '../domain/webhooks/delivery-workflow';
import type { OrganizationEventType } from '../domain/webhooks/organization-events';
import { WebhookDeliveries, type DeliveryLimits } from '../domain/webhooks/webhook-deliveries';
import { createCampaignRepository } from '../entities/repositories/campaign.repository';
import { createWebhookRepository } from '../entities/repositories/webhook.repository';
import type { Resolver } from '../platform/address-guard';
import type { Secrets } from '../telephony/secrets';
import type { CampaignLogEntry } from './campaign.activities';
import { WebhookDeliveryError, WebhookRefusedError, WebhookRejectedError } from '../domain/webhooks/delivery-errors';

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

export type CallEventType = Extract<OrganizationEventType, 'call.started' | 'call.ended'>;

/** A call event's id, the same for every retry of the step that emits it: a UUID from the run and the type. */
export function callEventId(runId: number, type: CallEventType): string {
  return eventUuid(`${type}/run-${runId}`);
}

/** `call_analyzed`'s id: one per analysis of the run (the call's own, and each rerun). */
export function analysisEventId(runId: number, analysisId: string): string {
  return eventUuid(`call_analyzed/run-${runId}/${analysisId}`);
}

const eventUuid = (name: string): string => {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

export interface CampaignEventInput {
  campaignId: number;
  type: Extract<OrganizationEventType, 'campaign.paused' | 'campaign.completed'>;
  eventId: string;
  /** The campaign log entry of the transition: why it paused (the breaker's figures), what it counted. */
  log: CampaignLogEntry;
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

/**
 * `call.started` once a call is placed, `call.ended` once its outcome is written, emitted by those
 * steps themselves (activities/call-events.ts), so a call has no step more; run in an activity, its
 * deliveries start on that activity's task queue. A failure is logged, never the call's.
 */
export function createCallEventEmitter(deps: OrganizationEventActivityDeps) {
  const webhooks = createWebhookRepository(deps.dataSource);
  return async (runId: number, type: CallEventType): Promise<void> => {
    try {
      const run = await webhooks.runOrFail(runId);
      const data: Record<string, unknown> = {
        workflow_run_id: run.id,
        agent_id: run.agentId,
        direction: run.callType,
        provider: run.provider,
        campaign_id: run.campaignId,
        ...(type === 'call.ended'
          ? {
              call_status: run.gatheredContext.call_status ?? null,
              disposition: run.disposition,
              duration_seconds: run.callDurationSeconds,
            }
          : {}),
      };
      await webhookDeliveries(deps, Context.current().info.taskQueue).emit(
        run.organizationId,
        type,
        data,
        callEventId(runId, type),
      );
    } catch (error) {
      activityLog.warn('call event not stored', { runId, type, error: String(error) });
    }
  };
}

/** Organization webhook events of campaigns, and each delivery's attempts. */
export function createOrganizationEventActivities(deps: OrganizationEventActivityDeps) {
  const deliveries = (taskQueue?: string) => webhookDeliveries(deps, taskQueue);
  const campaigns = createCampaignRepository({ dataSource: deps.dataSource });
  // Deliveries run on the queue of the worker that emitted them.
  const emitter = () => deliveries(Context.current().info.taskQueue);

  return {
    async emitCampaignEvent({ campaignId, type, eventId, log }: CampaignEventInput): Promise<number> {
      const campaign = await campaigns.getCampaign(campaignId);
      const data: Record<string, unknown> = {
        campaign_id: campaign.id,
        name: campaign.name,
        state: campaign.state,
        reason: log.event,
        message: log.message,
        details: log.details ?? {},
        processed_rows: campaign.processedRows,
        total_rows: campaign.totalRows,
        failed_rows: campaign.failedRows,
      };
      return (await emitter().emit(campaign.organizationId, type, data, eventId)).length;
    },

    /** One attempt of one delivery, logged; failures throw, typed for the retry policy. */
    async deliverOrganizationWebhook({ deliveryId }: { deliveryId: string }): Promise<number | null> {
      const { attempt } = Context.current().info;
      const outcome = await deliveries().attempt(deliveryId, attempt, Context.current().cancellationSignal);
      const message = outcome.error ?? 'not delivered';
      if (outcome.status === 'refused') throw new WebhookRefusedError(message);
      if (outcome.status === 'failed') throw new WebhookRejectedError(message, outcome.statusCode ?? 0);
      if (outcome.status === 'retrying') throw new WebhookDeliveryError(message, outcome.statusCode);
      return outcome.statusCode ?? null;
    },

    /** The workflow gave up on a delivery: its status says so for good. */
    async recordOrganizationWebhookGivenUp({ deliveryId, message }: { deliveryId: string; message: string }) {
      await deliveries().givenUp(deliveryId, message);
    },
  };
}

/**
 * `call_analyzed` once a run's analysis is stored, emitted by the analysis step itself
 * (activities/call-events.ts) with what it wrote: tags, typed fields, success, score, sentiment.
 * A failure is logged, never the analysis's.
 */
export function createAnalysisEventEmitter(deps: OrganizationEventActivityDeps) {
  const webhooks = createWebhookRepository(deps.dataSource);
  return async (runId: number, analysisId: string): Promise<void> => {
    try {
      const run = await webhooks.runOrFail(runId);
      const annotations = run.annotations ?? {};
      await emitCallAnalyzed(webhookDeliveries(deps, Context.current().info.taskQueue), {
        organizationId: run.organizationId,
        runId,
        analysis: { tags: annotations.tags ?? [], ...(isObject(annotations.analysis) ? annotations.analysis : {}) },
        eventId: analysisEventId(runId, analysisId),
      });
    } catch (error) {
      activityLog.warn('call_analyzed event not stored', { runId, analysisId, error: String(error) });
    }
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
