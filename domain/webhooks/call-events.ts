import type { WebhookRepository } from '../../entities/repositories/webhook.repository';
import { callEventData } from './event-data';
import { callEventId } from './event-ids';
import type { CallEventType } from './organization-events';
import type { WebhookDeliveries } from './webhook-deliveries';

export interface EventEmitDeps {
  /** Where the run is read. */
  runs: Pick<WebhookRepository, 'runOrFail'>;
  /** The deliveries an event is emitted through, for each emission (they start where it runs). */
  deliveries: () => WebhookDeliveries;
}

/**
 * `call.started` or `call.ended` of a run, to the organization's subscriptions, with what the run
 * says of the call; one event per run and type, however often it is emitted.
 */
export function createEmitCallEvent({ runs, deliveries }: EventEmitDeps) {
  return async (runId: number, type: CallEventType): Promise<string[]> => {
    const run = await runs.runOrFail(runId);
    return deliveries().emit(run.organizationId, type, callEventData(run, type), callEventId(runId, type));
  };
}
