import type { temporal } from '@temporalio/proto';
import { decryptedPayload } from './temporal';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The activity types of a history's local-activity markers, in order. */
export function localActivityTypes(events: HistoryEvent[]): string[] {
  return events.flatMap((event) =>
    (event.markerRecordedEventAttributes?.details?.data?.payloads ?? []).flatMap((payload) => {
      // Core writes LocalActivityMarkerData as JSON with the proto's snake_case names.
      const { data } = decryptedPayload(payload);
      const marker = JSON.parse(Buffer.from(data ?? []).toString('utf8')) as { activity_type?: unknown };
      return typeof marker.activity_type === 'string' ? [marker.activity_type] : [];
    }),
  );
}

/** The summaries the Temporal UI shows beside a history's timers, activities and children, in order. */
export function userMetadataSummaries(events: HistoryEvent[]): string[] {
  return events.flatMap((event) => {
    const summary = event.userMetadata?.summary;
    const data = summary ? decryptedPayload(summary).data : undefined;
    return data ? [JSON.parse(Buffer.from(data).toString('utf8')) as string] : [];
  });
}
