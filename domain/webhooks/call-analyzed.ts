import type { EventEmitDeps } from './call-events';
import { analysisOfAnnotations, callAnalyzedData } from './event-data';
import { analysisEventId } from './event-ids';
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
  return deliveries.emit(organizationId, 'call_analyzed', callAnalyzedData(runId, analysis), eventId);
}

/**
 * `call_analyzed` for the analysis `analysisId` of a run, with what it stored (tags, typed fields,
 * success, score, sentiment), read from the run; one event per analysis, however often it is emitted.
 */
export function createEmitRunAnalyzed({ runs, deliveries }: EventEmitDeps) {
  return async (runId: number, analysisId: string): Promise<string[]> => {
    const run = await runs.runOrFail(runId);
    return emitCallAnalyzed(deliveries(), {
      organizationId: run.organizationId,
      runId,
      analysis: analysisOfAnnotations(run.annotations),
      eventId: analysisEventId(runId, analysisId),
    });
  };
}
