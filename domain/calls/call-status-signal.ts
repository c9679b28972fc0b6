import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  callStatusSignal,
  callWorkflowId,
  transferStatusSignal,
  type CallStatusUpdate,
  type TransferStatusUpdate,
} from '../../workflows/definitions';

/**
 * Signals a provider's status to the run's call workflow. False when that workflow has already
 * closed: a finished call needs no more statuses, so that is no error.
 */
export async function signalCallStatus(
  temporal: Client,
  run: { id: number; temporalWorkflowId: string | null },
  update: CallStatusUpdate,
): Promise<boolean> {
  try {
    await temporal.workflow
      .getHandle(run.temporalWorkflowId ?? callWorkflowId(run.id))
      .signal(callStatusSignal, update);
    return true;
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    return false;
  }
}

/** Signals a provider's transfer event to the run's call workflow; false when that workflow has closed. */
export async function signalTransferStatus(
  temporal: Client,
  run: { id: number; temporalWorkflowId: string | null },
  update: TransferStatusUpdate,
): Promise<boolean> {
  try {
    await temporal.workflow
      .getHandle(run.temporalWorkflowId ?? callWorkflowId(run.id))
      .signal(transferStatusSignal, update);
    return true;
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    return false;
  }
}
