import { log, patched, proxyActivities, uuid4 } from '@temporalio/workflow';
import type { CampaignEventInput } from '../activities/organization-events.activities';
import type { createOrganizationEventActivities } from '../activities/organization-events.activities';
import { ACTIVITY_POLICIES } from './activity-policies';

type EventActivities = ReturnType<typeof createOrganizationEventActivities>;

/** Campaigns that began before organization events existed replay without them. */
export const ORGANIZATION_EVENTS_PATCH = 'organization-webhook-events';

// A call's events are emitted by its steps (activities/call-events.ts); a campaign's here.
const { emitCampaignEvent } = proxyActivities<EventActivities>(ACTIVITY_POLICIES.eventEmit);

/**
 * Stores the event for the organization's subscriptions, which then deliver it durably on their
 * own. An event that cannot be stored is logged, never a reason to fail the campaign.
 */
async function emit(describe: Record<string, unknown>, send: (eventId: string) => Promise<number>): Promise<void> {
  if (!patched(ORGANIZATION_EVENTS_PATCH)) return;
  try {
    await send(uuid4());
  } catch (error) {
    log.warn('organization event not stored', { ...describe, error: String(error) });
  }
}

export const emitCampaignLifecycleEvent = (input: Omit<CampaignEventInput, 'eventId'>): Promise<void> =>
  emit({ campaignId: input.campaignId, type: input.type }, (eventId) => emitCampaignEvent({ ...input, eventId }));
