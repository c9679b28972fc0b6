import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { organizationWebhookWorkflow } from '../../workflows/organization-webhook.workflow';

/** Started by its type name: the API and activities load no workflow code. */
const DELIVERY_WORKFLOW_TYPE = 'organizationWebhookWorkflow';

export const webhookDeliveryWorkflowId = (deliveryId: string): string => `webhook-delivery-${deliveryId}`;

/**
 * Starts the workflow that delivers one stored delivery, by the delivery's id: a second start (an
 * event emitted again) is refused by Temporal, even after the first has finished, so nothing is sent twice.
 */
export const deliveryStarter =
  (temporal: Client, taskQueue: string) =>
  async (deliveryId: string): Promise<void> => {
    try {
      await temporal.workflow.start<typeof organizationWebhookWorkflow>(DELIVERY_WORKFLOW_TYPE, {
        workflowId: webhookDeliveryWorkflowId(deliveryId),
        taskQueue,
        args: [{ deliveryId }],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        staticSummary: `Webhook delivery ${deliveryId}`,
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  };
