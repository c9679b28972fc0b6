import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  log,
  proxyActivities,
  setWorkflowOptions,
} from '@temporalio/workflow';
import type { createOrganizationEventActivities } from '../activities/organization-events.activities';
import { ACTIVITY_POLICIES } from './activity-policies';
import { versioningBehavior } from './versioning-behavior';

type EventActivities = ReturnType<typeof createOrganizationEventActivities>;

const { deliverOrganizationWebhook } = proxyActivities<EventActivities>(ACTIVITY_POLICIES.webhookDelivery);
const { recordOrganizationWebhookGivenUp } = proxyActivities<EventActivities>(ACTIVITY_POLICIES.webhookBookkeeping);

const failureMessage = (error: unknown): string => {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) return cause.message;
  if (cause instanceof TimeoutFailure) return `timed out (${cause.timeoutType})`;
  return String(cause);
};

/**
 * One delivery of an organization event to one subscription (`webhook-delivery-<id>`): attempts
 * with backoff (refusals and 4xx answers are final), each logged by the activity; when it gives up,
 * the delivery is marked failed. It never fails itself: the delivery log is where failures show.
 */
// Seconds to minutes long: it ends on the build it started on.
setWorkflowOptions(versioningBehavior('PINNED'), organizationWebhookWorkflow);
export async function organizationWebhookWorkflow({ deliveryId }: { deliveryId: string }): Promise<void> {
  try {
    await deliverOrganizationWebhook({ deliveryId });
  } catch (error) {
    const message = failureMessage(error);
    log.warn('organization webhook not delivered', { deliveryId, error: message });
    await recordOrganizationWebhookGivenUp({ deliveryId, message });
  }
}
