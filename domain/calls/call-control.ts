import { ProviderError, type StatusEvent } from '../../telephony/provider';
import type { CallStatusUpdate } from '../../workflows/definitions';
import type { CallProviderOf } from './call-provider';
import type { CallRecords } from './call-records';

/** A run's placed call, as its provider knows it. */
export interface ProviderCallRef {
  runId: number;
  providerCallId: string;
}

export interface CallControlDeps {
  records: CallRecords;
  providerOf: CallProviderOf;
}

/** A provider's status event as the call workflow takes it. */
export const callStatusUpdateOf = (event: StatusEvent): CallStatusUpdate => ({
  status: event.status,
  providerCallId: event.providerCallId,
  durationSeconds: event.durationSeconds,
  ...(event.answeredBy ? { answeredBy: event.answeredBy } : {}),
});

/** Asks a placed call's provider about it, and hangs it up. */
export function createCallControl({ records, providerOf }: CallControlDeps) {
  return {
    /** The provider's view of the call; null when it does not know it. */
    async status({ runId, providerCallId }: ProviderCallRef): Promise<CallStatusUpdate | null> {
      const event = await providerOf(await records.load(runId)).getCallStatus(providerCallId);
      return event ? callStatusUpdateOf(event) : null;
    },

    /** Hangs the call up; a call the provider no longer knows is already over. */
    async hangup({ runId, providerCallId }: ProviderCallRef): Promise<void> {
      try {
        await providerOf(await records.load(runId)).hangup(providerCallId);
      } catch (error) {
        if (error instanceof ProviderError && error.status === 404) return;
        throw error;
      }
    },
  };
}
