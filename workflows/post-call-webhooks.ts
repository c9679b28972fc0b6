import { ActivityFailure, ApplicationFailure, TimeoutFailure, log, proxyActivities } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhook.activities';
import type { PostCallWebhook } from '../domain/webhooks/post-call-nodes';
import { ACTIVITY_POLICIES } from './activity-policies';

type WebhookActivities = ReturnType<typeof createWebhookActivities>;

export { WEBHOOK_MAX_ATTEMPTS } from './activity-policies';

const { deliverPostCallWebhook } = proxyActivities<WebhookActivities>(ACTIVITY_POLICIES.webhookDelivery);
const { recordWebhookFailure } = proxyActivities<WebhookActivities>(ACTIVITY_POLICIES.webhookBookkeeping);

/** The failure's type and message as the run's logs keep them. */
function describeFailure(error: unknown): { errorType: string; message: string } {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) return { errorType: cause.type ?? 'Error', message: cause.message };
  if (cause instanceof TimeoutFailure) return { errorType: 'Timeout', message: `timed out (${cause.timeoutType})` };
  return { errorType: 'Error', message: String(cause) };
}

/**
 * After the run is finalized: every enabled `webhook` node of the agent gets its request, in
 * parallel, each with its own retries. Nothing here fails the call workflow: a webhook that cannot
 * be delivered is recorded in `runs.logs.webhooks` and logged. `webhooks`: as `concludeCall` listed them.
 */
export async function sendPostCallWebhooks(runId: number, webhooks: PostCallWebhook[]): Promise<void> {
  await Promise.all(
    webhooks.map(async ({ nodeId }) => {
      try {
        await deliverPostCallWebhook({ runId, nodeId });
      } catch (error) {
        const failure = describeFailure(error);
        log.warn('post-call webhook failed', { runId, nodeId, ...failure });
        try {
          await recordWebhookFailure({ runId, nodeId, ...failure });
        } catch (recordError) {
          log.error('post-call webhook failure could not be recorded', { runId, nodeId, error: String(recordError) });
        }
      }
    }),
  );
}
