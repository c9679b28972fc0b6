import type { WebhookDeliveries } from './webhook-deliveries';

export interface CallAnalyzedEvent {
  organizationId: number;
  runId: number;
  /** What the analysis found, sent as `data.analysis`. */
  analysis: Record<string, unknown>;
  /** The same id for the same analysis: emitting it again (a retry) sends nothing twice. */
  eventId?: string;
}

/** Sends `call_analyzed` to the organization's subscriptions once a run's analysis is stored. */
export function emitCallAnalyzed(
  deliveries: WebhookDeliveries,
  { organizationId, runId, analysis, eventId }: CallAnalyzedEvent,
): Promise<string[]> {
  return deliveries.emit(organizationId, 'call_analyzed', { workflow_run_id: runId, analysis }, eventId);
}
