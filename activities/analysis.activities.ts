import { log } from '@temporalio/activity';
import {
  createRunAnalysis,
  type AnalyzeRunInput,
  type AnalyzeRunResult,
  type RunAnalysisDeps,
} from '../domain/analysis/analyze-run';

export type { AnalyzeRunInput, AnalyzeRunResult };
export type AnalysisActivityDeps = Omit<RunAnalysisDeps, 'log'>;

export function createAnalysisActivities(deps: AnalysisActivityDeps) {
  const analysis = createRunAnalysis({ ...deps, log });
  return {
    /**
     * Analyses a finished run with the QA nodes of its agent version (a rerun: the agent's current
     * version) and writes the results to its annotations, the tokens to its usage. Model failures
     * are recorded per node; only the database's failures throw, and a retry repeats nothing.
     */
    analyzeRun(input: AnalyzeRunInput): Promise<AnalyzeRunResult> {
      return analysis.analyze(input);
    },
  };
}
