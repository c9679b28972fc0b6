import type { DataSource } from 'typeorm';
import { createRunRepository } from '../../entities/repositories/run.repository';
import type { Actor } from '../actor';
import { formatTranscript } from '../calls/transcript';
import { NotFoundError } from '../errors';

export const RUN_NOT_FOUND = 'Workflow run not found';
export const RECORDING_NOT_FOUND = 'Recording not found';

/** The run's transcript as text; 404 when the run is unknown, another agent's or another organization's. */
export async function runTranscript(dataSource: DataSource, caller: Actor, agentId: number, runId: number) {
  const run = await createRunRepository(dataSource).findLogs(caller.organizationId, agentId, runId);
  if (!run) throw new NotFoundError(RUN_NOT_FOUND);
  return formatTranscript(run.logs.transcript);
}

/** The id of the run whose recording is asked for; 404 as for the transcript, or when it has no recording. */
export async function recordedRunId(
  dataSource: DataSource,
  caller: Actor,
  agentId: number,
  runId: number,
): Promise<number> {
  const run = await createRunRepository(dataSource).findRecording(caller.organizationId, agentId, runId);
  if (!run) throw new NotFoundError(RUN_NOT_FOUND);
  if (!run.recordingUrl) throw new NotFoundError(RECORDING_NOT_FOUND);
  return run.id;
}
