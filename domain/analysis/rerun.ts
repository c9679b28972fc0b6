import { createHash, randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { createRunAnalysisRepository } from '../../entities/repositories/run-analysis.repository';
import type { analysisWorkflow } from '../../workflows/analysis.workflow';
import { analysisWorkflowId } from '../../workflows/definitions';
import type { Actor } from '../actor';
import { ConflictError, NotFoundError } from '../errors';
import { enabledQaSettingsOf } from './qa-settings';

/** Started by its type name, checked against its signature: the API loads no workflow code. */
type AnalysisWorkflow = typeof analysisWorkflow;
const ANALYSIS_WORKFLOW_TYPE = 'analysisWorkflow';

export interface AnalysisRerun {
  run_id: number;
  /** Names the rerun; `annotations.analysis_run.id` once its results are written. */
  analysis_id: string;
  status: 'accepted';
}

/**
 * Starts a rerun of a finished run's analysis with its agent's current QA nodes, as a workflow
 * (durable). The same request key names the same rerun, so repeating the request starts nothing
 * more; without a key each request is a new rerun. The run must be the caller's (404), finished
 * and not erased, and its agent must have an enabled QA node now (409).
 */
export async function rerunAnalysis(
  deps: { dataSource: DataSource; temporal: Client; taskQueue: string },
  caller: Actor,
  runId: number,
  requestKey: string | undefined,
): Promise<AnalysisRerun> {
  const run = await createRunAnalysisRepository(deps.dataSource).rerunCandidate(caller.organizationId, runId);
  if (!run) throw new NotFoundError('Workflow run not found');
  if (!run.is_completed) throw new ConflictError('The run has not ended yet: it is analysed once it has');
  if (run.erased) throw new ConflictError("The run's personal data was erased: there is nothing left to analyse");
  if (enabledQaSettingsOf(run.definition ?? {}).length === 0) {
    throw new ConflictError("The run's agent has no enabled QA node to analyse it with");
  }
  const analysisId = requestKey
    ? `key-${createHash('sha256').update(requestKey).digest('hex').slice(0, 32)}`
    : `rerun-${randomUUID()}`;
  try {
    await deps.temporal.workflow.start<AnalysisWorkflow>(ANALYSIS_WORKFLOW_TYPE, {
      workflowId: analysisWorkflowId(runId, analysisId),
      taskQueue: deps.taskQueue,
      args: [{ runId, analysisId }],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      staticSummary: `Rerun of run ${runId}'s analysis`,
    });
  } catch (error) {
    // Started by an earlier request with the same key: that rerun is this one.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return { run_id: runId, analysis_id: analysisId, status: 'accepted' };
}
