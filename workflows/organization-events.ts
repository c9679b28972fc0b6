import { log, patched, proxyActivities, proxyLocalActivities, uuid4 } from '@temporalio/workflow';
import type { CallEventInput, CampaignEventInput } from '../activities/organization-events.activities';
import type { createOrganizationEventActivities } from '../activities/organization-events.activities';
import { ACTIVITY_POLICIES } from './activity-policies';

type EventActivities = ReturnType<typeof createOrganizationEventActivities>;

/** Workflows that began before organization events existed replay without them. */
export const ORGANIZATION_EVENTS_PATCH = 'organization-webhook-events';

// A call's events run in its worker (a short database write and a start); a campaign's as activities.
const { emitCallEvent } = proxyLocalActivities<EventActivities>(ACTIVITY_POLICIES.eventEmit);
const { emitCampaignEvent } = proxyActivities<EventActivities>(ACTIVITY_POLICIES.eventEmit);

/**
 * Stores the event for the organization's subscriptions, which then deliver it durably on their
 * own. An event that cannot be stored is logged, never a reason to fail the call or campaign.
 */
async function emit(describe: Record<string, unknown>, send: (eventId: string) => Promise<number>): Promise<void> {
  if (!patched(ORGANIZATION_EVENTS_PATCH)) return;
  try {
    await send(uuid4());
  } catch (error) {
    log.warn('organization event not stored', { ...describe, error: String(error) });
  }
}

export const emitCallLifecycleEvent = (runId: number, type: CallEventInput['type']): Promise<void> =>
  emit({ runId, type }, (eventId) => emitCallEvent({ runId, type, eventId }));

export const emitCampaignLifecycleEvent = (input: Omit<CampaignEventInput, 'eventId'>): Promise<void> =>
  emit({ campaignId: input.campaignId, type: input.type }, (eventId) => emitCampaignEvent({ ...input, eventId }));
