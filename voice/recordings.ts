import { join } from 'node:path';

/** Where a run's two-track WAV is written: `${RECORDINGS_DIR}/<run_id>.wav`. */
export const recordingPath = (recordingsDir: string, runId: number): string => join(recordingsDir, `${runId}.wav`);

/** Where the run's recording is served (authenticated, to the run's organization). */
export const recordingUrl = (workflowId: number, runId: number): string =>
  `/api/v1/workflow/${workflowId}/runs/${runId}/recording`;
