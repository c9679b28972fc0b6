import type { DataSource } from 'typeorm';
import { createRunRepository, type CallRecord, type RunOutcome } from '../../entities/repositories/run.repository';
import { CallSetupError } from './call-errors';

export type { CallRecord, RunOutcome };

/**
 * The run as a call's steps read and write it: one statement each (the run repository's
 * hot path). A run that does not exist is a setup error: the step cannot go on.
 */
export function createCallRecords(dataSource: DataSource) {
  const runs = createRunRepository(dataSource);
  return {
    async load(runId: number): Promise<CallRecord> {
      const record = await runs.callRecord(runId);
      if (!record) throw new CallSetupError(`Run ${runId} does not exist`);
      return record;
    },

    /** The dial went out: the run is running, with the provider's id of its call. */
    markDialed: (runId: number, providerCallId: string): Promise<void> => runs.markDialed(runId, providerCallId),

    /** Writes the outcome unless the run is already completed; the run's agent version (undefined: no such run). */
    complete: (runId: number, outcome: RunOutcome): Promise<number | undefined> => runs.complete(runId, outcome),
  };
}

export type CallRecords = ReturnType<typeof createCallRecords>;
