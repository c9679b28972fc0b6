import type { DataLifecycleStatements } from '../../entities/repositories/data-lifecycle.repository';
import type { RecordingStore } from '../../voice/recording-store';

export interface ErasedRuns {
  runs: number;
  recordings: number;
}

/**
 * Erases the given runs of an organization. Recordings go first and the rows after, so a crash
 * between the two leaves rows that are erased again on the next attempt (removing a recording
 * that is gone already is no error): every step may run twice.
 */
export async function eraseRuns(
  lifecycle: DataLifecycleStatements,
  recordings: RecordingStore,
  organizationId: number,
  runIds: number[],
): Promise<ErasedRuns> {
  if (runIds.length === 0) return { runs: 0, recordings: 0 };
  const withRecording = await lifecycle.runsWithRecording(organizationId, runIds);
  for (const id of withRecording) await recordings.remove(id);
  const erased = await lifecycle.eraseRunRows(organizationId, runIds);
  return { runs: erased, recordings: withRecording.length };
}

/** Deletes a run's recording (the file and the run's link to it). */
export async function removeRecording(
  lifecycle: DataLifecycleStatements,
  recordings: RecordingStore,
  organizationId: number,
  runId: number,
): Promise<void> {
  await recordings.remove(runId);
  await lifecycle.unlinkRecording(organizationId, runId);
}
