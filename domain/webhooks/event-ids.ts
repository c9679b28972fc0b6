import { createHash } from 'node:crypto';
import type { CallEventType } from './organization-events';

/**
 * An event's id from a name: a UUID (version 5 layout) of the name's SHA-256, so the step that
 * emits an event gives it the same id on every retry and the deliveries are stored once.
 */
export function eventUuid(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A call event's id, the same for every retry of the step that emits it: from the run and the type. */
export const callEventId = (runId: number, type: CallEventType): string => eventUuid(`${type}/run-${runId}`);

/** `call_analyzed`'s id: one per analysis of the run (the call's own, and each rerun). */
export const analysisEventId = (runId: number, analysisId: string): string =>
  eventUuid(`call_analyzed/run-${runId}/${analysisId}`);
