import { quotaBreach } from '../../domain/quotas';
import { deliveryStarter } from '../../domain/webhooks/delivery-workflow';
import { WebhookDeliveries } from '../../domain/webhooks/webhook-deliveries';
import { WebhookSubscriptions } from '../../domain/webhooks/webhook-subscriptions';
import type { Resolver } from '../../platform/address-guard';
import { loadSecrets } from '../../telephony/secrets';
import type { ApiDeps } from '../context';
import { defineRoute, errorResponse, type Route } from '../route';
import {
  DeletedWebhookSubscription,
  WebhookDeliveryList,
  WebhookDeliveryQuery,
  WebhookDeliveryResponse,
  WebhookSubscriptionList,
  WebhookSubscriptionParams,
  WebhookSubscriptionRequest,
  WebhookSubscriptionResponse,
} from '../schemas/webhook-subscriptions';

const BASE = '/webhook-subscriptions';
const ONE = `${BASE}/{subscription_uuid}`;
const security = ['ApiKey', 'SessionToken'] as const;
const tags = ['webhooks'];
const NOT_FOUND = 'Webhook subscription not found in this organization';

/** The organization's webhook subscriptions: call and campaign events sent, signed, to its URLs. */
export function createWebhookSubscriptionRoutes(
  { config, dataSource, temporal }: ApiDeps,
  options: { resolve?: Resolver } = {},
): Route[] {
  const subscriptions = new WebhookSubscriptions({ dataSource, config, ...options });
  const deliveries = new WebhookDeliveries({
    dataSource,
    secrets: loadSecrets(config),
    allowPrivate: config.ALLOW_PRIVATE_WEBHOOKS,
    signV1: config.WEBHOOK_SIGNATURE_V1,
    startDelivery: deliveryStarter(temporal, config.TEMPORAL_TASK_QUEUE),
    ...options,
  });

  return [
    defineRoute(
      {
        method: 'get',
        path: BASE,
        operationId: 'listWebhookSubscriptions',
        summary: "The organization's webhook subscriptions",
        description: 'Newest first, inactive ones included.',
        tags,
        security,
        responses: { 200: { description: 'Newest first', schema: WebhookSubscriptionList } },
      },
      async (ctx, { auth }) => {
        ctx.body = { subscriptions: await subscriptions.list(auth.organizationId) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: BASE,
        operationId: 'createWebhookSubscription',
        summary: 'Subscribe a URL to events',
        description:
          'Each event is POSTed as JSON `{id, type, created_at, data}`, signed with the organization’s webhook ' +
          'signing secret like post-call webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), and ' +
          'retried with backoff; every attempt is in the delivery log.',
        tags,
        security,
        body: WebhookSubscriptionRequest,
        responses: {
          201: { description: 'Created', schema: WebhookSubscriptionResponse },
          409: errorResponse(quotaBreach('webhook_subscriptions')),
        },
      },
      async (ctx, { body, auth }) => {
        ctx.status = 201;
        ctx.body = await subscriptions.create(auth.organizationId, body);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: ONE,
        operationId: 'getWebhookSubscription',
        summary: 'One webhook subscription',
        description: 'With the events it receives and whether it is active.',
        tags,
        security,
        params: WebhookSubscriptionParams,
        responses: {
          200: { description: 'The subscription', schema: WebhookSubscriptionResponse },
          404: errorResponse(NOT_FOUND),
        },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await subscriptions.get(auth.organizationId, params.subscription_uuid);
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: ONE,
        operationId: 'updateWebhookSubscription',
        summary: 'Replace a webhook subscription',
        description: 'Deliveries not yet sent go to the new URL.',
        tags,
        security,
        params: WebhookSubscriptionParams,
        body: WebhookSubscriptionRequest,
        responses: {
          200: { description: 'Replaced', schema: WebhookSubscriptionResponse },
          404: errorResponse(NOT_FOUND),
        },
      },
      async (ctx, { params, body, auth }) => {
        ctx.body = await subscriptions.update(auth.organizationId, params.subscription_uuid, body);
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: ONE,
        operationId: 'deleteWebhookSubscription',
        summary: 'Delete a webhook subscription',
        description: 'Its delivery log goes with it; deliveries still being retried stop.',
        tags,
        security,
        params: WebhookSubscriptionParams,
        responses: {
          200: { description: 'Deleted', schema: DeletedWebhookSubscription },
          404: errorResponse(NOT_FOUND),
        },
      },
      async (ctx, { params, auth }) => {
        await subscriptions.remove(auth.organizationId, params.subscription_uuid);
        ctx.body = { status: 'deleted', subscription_uuid: params.subscription_uuid };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: `${ONE}/test`,
        operationId: 'testWebhookSubscription',
        summary: 'Send a test event now',
        description:
          'A `webhook.test` event, signed like every delivery, sent once (no retries) even to an inactive ' +
          'subscription; the answer is the delivery as the log keeps it, with its status code, duration and error.',
        tags,
        security,
        params: WebhookSubscriptionParams,
        responses: {
          200: { description: 'The delivery', schema: WebhookDeliveryResponse },
          404: errorResponse(NOT_FOUND),
        },
      },
      async (ctx, { params, auth }) => {
        ctx.body = await deliveries.test(auth.organizationId, params.subscription_uuid);
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: `${ONE}/deliveries`,
        operationId: 'listWebhookDeliveries',
        summary: "The subscription's delivery log",
        description: 'Newest first: each event sent to the subscription, its status and every attempt.',
        tags,
        security,
        params: WebhookSubscriptionParams,
        query: WebhookDeliveryQuery,
        responses: {
          200: { description: 'The deliveries', schema: WebhookDeliveryList },
          404: errorResponse(NOT_FOUND),
        },
      },
      async (ctx, { params, query, auth }) => {
        ctx.body = { deliveries: await deliveries.list(auth.organizationId, params.subscription_uuid, query.limit) };
      },
    ),
  ];
}
