import { ActivityFailure, ApplicationFailure, TimeoutFailure, log, proxyActivities } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhook.activities';
import type { PostCallWebhook } from '../activities/webhook/nodes';

type WebhookActivities = ReturnType<typeof createWebhookActivities>;

/** Delivery attempts per webhook node: 1 s, 2 s, 4 s, 8 s apart. */
export const WEBHOOK_MAX_ATTEMPTS = 5;

// Refused addresses and 4xx answers are final (activities/webhook/errors.ts); the rest backs off.
const { deliverPostCallWebhook } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    maximumAttempts: WEBHOOK_MAX_ATTEMPTS,
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: ['WebhookRefusedError', 'WebhookRejectedError'],
  },
});

// Bookkeeping in PostgreSQL: retried until it succeeds, within reason.
const { recordWebhookFailure } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
});

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
