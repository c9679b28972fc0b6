import { Context } from '@temporalio/activity';
import {
  createPostCallWebhooks,
  type DeliverWebhookInput,
  type PostCallWebhookDeps,
  type WebhookFailureInput,
} from '../domain/webhooks/post-call-delivery';

export type WebhookActivityDeps = PostCallWebhookDeps;

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const webhooks = createPostCallWebhooks(deps);
  return {
    /**
     * Renders, signs and sends one webhook node's request against the finished run. Each attempt's
     * outcome is written to `logs.webhooks`; failures throw, typed for the workflow's retry policy.
     */
    deliverPostCallWebhook(input: DeliverWebhookInput): Promise<{ httpStatus: number }> {
      const { info, cancellationSignal } = Context.current();
      // The activity's cancellation (or its worker's shutdown) aborts the request in flight.
      return webhooks.deliver({ ...input, attempt: info.attempt, signal: cancellationSignal });
    },

    /** The workflow gave up on a node (attempts exhausted, timeout, refusal): its entry says so for good. */
    recordWebhookFailure(input: WebhookFailureInput): Promise<void> {
      return webhooks.recordFailure(input);
    },
  };
}
