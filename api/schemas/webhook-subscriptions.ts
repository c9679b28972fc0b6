import { ORGANIZATION_EVENT_TYPES, TEST_EVENT_TYPE } from '../../domain/webhooks/organization-events';
import type { WebhookDeliveryView } from '../../domain/webhooks/webhook-deliveries';
import type { WebhookSubscriptionView } from '../../domain/webhooks/webhook-subscriptions';
import { TEXT_LIMITS } from '../../domain/limits';
import { z } from '../zod';
import { DateTimeString, EXAMPLE_TIME, text, type Documents, type SameShape } from './common';

const EventType = z.enum(ORGANIZATION_EVENT_TYPES).openapi('OrganizationEventType', {
  description:
    '`call.started`: an outbound call was placed with the provider; `call.ended`: its outcome is recorded; ' +
    '`campaign.paused`: paused by a person or by its circuit breaker (with the figures); `campaign.completed`: ' +
    'every contact has a final outcome; `call_analyzed`: the analysis of a run is stored.',
});

const EXAMPLE_UUID = '7b1d2c4e-9f3a-4c8b-a1d2-3e4f5a6b7c8d';

export const WebhookSubscriptionRequest = z
  .object({
    url: z
      .string()
      .min(1)
      .max(TEXT_LIMITS.url)
      .openapi({
        description:
          'http or https. A host that is a private, loopback or metadata address is refused here (422) and at ' +
          'every delivery, unless the service allows private webhooks. Redirects are not followed.',
        example: 'https://hooks.example.com/switchboard',
      }),
    events: z
      .array(EventType)
      .min(1)
      .max(ORGANIZATION_EVENT_TYPES.length)
      .refine((events) => new Set(events).size === events.length, 'each event at most once')
      .openapi({ uniqueItems: true }),
    active: z.boolean().default(true).openapi({ description: 'An inactive subscription is sent nothing.' }),
    description: text(TEXT_LIMITS.text).default(''),
  })
  .openapi('WebhookSubscriptionRequest', {
    example: {
      url: 'https://hooks.example.com/switchboard',
      events: ['call.ended', 'campaign.completed'],
      active: true,
      description: 'CRM sync',
    },
  });

const EXAMPLE_SUBSCRIPTION = {
  subscription_uuid: EXAMPLE_UUID,
  url: 'https://hooks.example.com/switchboard',
  events: ['call.ended', 'campaign.completed'],
  active: true,
  description: 'CRM sync',
  created_at: EXAMPLE_TIME,
  updated_at: EXAMPLE_TIME,
};

export const WebhookSubscriptionResponse = z
  .object({
    subscription_uuid: z.uuid(),
    url: z.string(),
    events: z.array(EventType),
    active: z.boolean(),
    description: z.string(),
    created_at: DateTimeString,
    updated_at: DateTimeString,
  })
  .openapi('WebhookSubscription', { example: EXAMPLE_SUBSCRIPTION });

export const WebhookSubscriptionList = z
  .object({ subscriptions: z.array(WebhookSubscriptionResponse) })
  .openapi('WebhookSubscriptionList', {
    description: 'Newest first.',
    example: { subscriptions: [EXAMPLE_SUBSCRIPTION] },
  });

export const DeletedWebhookSubscription = z
  .object({ status: z.literal('deleted'), subscription_uuid: z.uuid() })
  .openapi('DeletedWebhookSubscription', { example: { status: 'deleted', subscription_uuid: EXAMPLE_UUID } });

export const WebhookSubscriptionParams = z.object({
  subscription_uuid: z.uuid().openapi({ example: EXAMPLE_UUID }),
});

export const WebhookDeliveryQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

const DeliveryAttempt = z
  .object({
    attempt: z.number().int(),
    status_code: z.number().int().nullable().openapi({ description: 'Null when no answer came (refused, timeout).' }),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
    at: DateTimeString,
  })
  .openapi('WebhookDeliveryAttempt');

const EXAMPLE_DELIVERY = {
  delivery_uuid: 'c3d4e5f6-0a1b-4c2d-8e3f-4a5b6c7d8e9f',
  event_id: '0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b',
  event_type: 'call.ended',
  status: 'delivered',
  attempts: [
    { attempt: 1, status_code: 503, duration_ms: 41, error: 'hooks.example.com answered 503', at: EXAMPLE_TIME },
    { attempt: 2, status_code: 200, duration_ms: 38, error: null, at: EXAMPLE_TIME },
  ],
  payload: {
    id: '0e1f2a3b-4c5d-4e6f-8a7b-9c0d1e2f3a4b',
    type: 'call.ended',
    created_at: EXAMPLE_TIME,
    data: { workflow_run_id: 1042, call_status: 'completed', duration_seconds: 37, campaign_id: null },
  },
  created_at: EXAMPLE_TIME,
  updated_at: EXAMPLE_TIME,
};

export const WebhookDeliveryResponse = z
  .object({
    delivery_uuid: z.uuid().openapi({ description: 'Sent as `webhook-id` and `X-Switchboard-Delivery`.' }),
    event_id: z.uuid(),
    event_type: z.enum([...ORGANIZATION_EVENT_TYPES, TEST_EVENT_TYPE]),
    status: z.enum(['pending', 'delivered', 'retrying', 'failed', 'refused']).openapi({
      description:
        '`retrying` after an attempt that will be tried again; `failed` (the receiver refused it, or attempts ran ' +
        'out) and `refused` (the address is not allowed) are final.',
    }),
    attempts: z.array(DeliveryAttempt),
    payload: z
      .object({
        id: z.uuid(),
        type: z.string(),
        created_at: DateTimeString,
        data: z.record(z.string(), z.unknown()),
      })
      .openapi({ description: 'The body sent, as JSON.' }),
    created_at: DateTimeString,
    updated_at: DateTimeString,
  })
  .openapi('WebhookDelivery', { example: EXAMPLE_DELIVERY });

export const WebhookDeliveryList = z
  .object({ deliveries: z.array(WebhookDeliveryResponse) })
  .openapi('WebhookDeliveryList', { description: 'Newest first.', example: { deliveries: [EXAMPLE_DELIVERY] } });

export type WebhookSubscriptionDocumented = Documents<
  SameShape<z.output<typeof WebhookSubscriptionResponse>, WebhookSubscriptionView>
>;
export type WebhookDeliveryDocumented = Documents<
  SameShape<z.output<typeof WebhookDeliveryResponse>['attempts'], WebhookDeliveryView['attempts']>
>;
