import type { DataSource, EntityManager } from 'typeorm';
import type { RecordingStore } from '../../voice/recording-store';

/**
 * What erasing a run clears: the numbers, contexts, logs (the transcript and the analysis live
 * there), annotations and their history of analyses, and the links to the recording and transcript. Duration, tokens, charge,
 * cost and usage stay, so the usage report still sums; `erased_at` records when.
 */
const ERASE_RUN_SET = `
  caller_number = NULL, called_number = NULL, initial_context = '{}', gathered_context = '{}',
  logs = '{}', annotations = '{}', analysis_history = '[]', recording_url = NULL, transcript_url = NULL,
  erased_at = coalesce(erased_at, now()), updated_at = now()`;

/** A run still on the line: its call would write back what was erased. */
export const RUN_IN_PROGRESS = `state = 'running'`;

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
  manager: EntityManager | DataSource,
  recordings: RecordingStore,
  organizationId: number,
  runIds: number[],
): Promise<ErasedRuns> {
  if (runIds.length === 0) return { runs: 0, recordings: 0 };
  const withRecording = await manager.query<{ id: number }[]>(
    `SELECT id FROM runs WHERE organization_id = $1 AND id = ANY($2) AND recording_url IS NOT NULL`,
    [organizationId, runIds],
  );
  for (const { id } of withRecording) await recordings.remove(id);
  const [, erased] = await manager.query<[unknown, number]>(
    `UPDATE runs SET ${ERASE_RUN_SET} WHERE organization_id = $1 AND id = ANY($2)`,
    [organizationId, runIds],
  );
  return { runs: erased, recordings: withRecording.length };
}

/** Deletes a run's recording (the file and the run's link to it). */
export async function removeRecording(
  dataSource: DataSource,
  recordings: RecordingStore,
  organizationId: number,
  runId: number,
): Promise<void> {
  await recordings.remove(runId);
  await dataSource.query(
    `UPDATE runs SET recording_url = NULL, updated_at = now() WHERE organization_id = $1 AND id = $2`,
    [organizationId, runId],
  );
}
