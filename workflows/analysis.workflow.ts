import { proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { AnalyzeRunInput, AnalyzeRunResult, createAnalysisActivities } from '../activities/analysis.activities';
import { ACTIVITY_POLICIES } from './activity-policies';
import { versioningBehavior } from './versioning-behavior';

const { analyzeRun } = proxyActivities<ReturnType<typeof createAnalysisActivities>>({
  ...ACTIVITY_POLICIES.postCallAnalysis,
  summary: 'post-call analysis (rerun)',
});

/**
 * A rerun of one finished run's analysis (`run-analysis-<runId>-<analysisId>`), with its agent's
 * current QA nodes: the previous results move to the run's history of analyses. Durable: once the
 * API has started it, it finishes even if the API or a worker goes down.
 */
// Seconds long: it ends on the build it started on.
setWorkflowOptions(versioningBehavior('PINNED'), analysisWorkflow);
export async function analysisWorkflow(input: AnalyzeRunInput): Promise<AnalyzeRunResult> {
  return analyzeRun(input);
}
