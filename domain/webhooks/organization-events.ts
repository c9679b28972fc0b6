/**
 * The events an organization can subscribe to, and the envelope every delivery carries:
 * `{id, type, created_at, data}`. `id` is the event's; one event sent to several subscriptions
 * has one id, each delivery its own `webhook-id`.
 */
export const ORGANIZATION_EVENT_TYPES = [
  'call.started',
  'call.ended',
  'campaign.paused',
  'campaign.completed',
  'call_analyzed',
] as const;
export type OrganizationEventType = (typeof ORGANIZATION_EVENT_TYPES)[number];

/** The events of a call, emitted by its steps. */
export type CallEventType = Extract<OrganizationEventType, 'call.started' | 'call.ended'>;

/** The events of a campaign, emitted by its workflow. */
export type CampaignEventType = Extract<OrganizationEventType, 'campaign.paused' | 'campaign.completed'>;

/** What the test endpoint sends; never subscribed to, always deliverable. */
export const TEST_EVENT_TYPE = 'webhook.test';
export type DeliveredEventType = OrganizationEventType | typeof TEST_EVENT_TYPE;

export interface OrganizationEventEnvelope {
  id: string;
  type: DeliveredEventType;
  created_at: string;
  data: Record<string, unknown>;
}
