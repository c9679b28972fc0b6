import type { DataSource, EntityManager } from 'typeorm';
import { repositoryOver } from './repository';

/** A finished run as its analysis reads it, with its agent's current version and the number's last summary. */
export interface RunAnalysisRow {
  id: number;
  organization_id: number;
  workflow_id: number;
  definition_id: number;
  current_definition_id: number | null;
  call_duration_seconds: number;
  disposition: string | null;
  gathered_context: Record<string, unknown>;
  logs: Record<string, unknown>;
  annotations: Record<string, unknown>;
  analysis_history: Record<string, unknown>[];
  /** The call summary of the latest earlier run of the agent with the same number, if any. */
  previous_summary: string | null;
}

/** What an analysis's write starts from, read under the run's row lock. */
export interface AnalysisState {
  annotations: Record<string, unknown>;
  analysis_history: Record<string, unknown>[];
  call_duration_seconds: number;
  platform_token_usage: number;
  usage_info: Record<string, unknown>;
}

/** The columns an analysis writes. */
export interface AnalysisWrite {
  annotations: Record<string, unknown>;
  analysisHistory: Record<string, unknown>[];
  platformTokenUsage: number;
  usageInfo: Record<string, unknown>;
  chargeUsd: number;
}

/** What a rerun of a run's analysis checks first: the run's state and its agent's current graph. */
export interface RerunCandidate {
  is_completed: boolean;
  erased: boolean;
  definition: Record<string, unknown> | null;
}

/** Reading a run for its analysis and writing the results back, in one statement each. */
export function runAnalysisStatements(manager: EntityManager) {
  return {
    /** The finished run, not erased; null otherwise. */
    async runForAnalysis(runId: number): Promise<RunAnalysisRow | null> {
      const [row] = await manager.query<RunAnalysisRow[]>(
        `SELECT r.id, r.organization_id, r.workflow_id, r.definition_id, a.current_definition_id,
              r.call_duration_seconds, r.disposition, r.gathered_context, r.logs, r.annotations, r.analysis_history,
              (SELECT p.annotations->'analysis'->'fields'->'call_summary'->>'value'
                 FROM runs p
                WHERE r.called_number IS NOT NULL AND p.called_number = r.called_number
                  AND p.workflow_id = r.workflow_id AND p.id < r.id AND p.erased_at IS NULL
                ORDER BY p.id DESC LIMIT 1) AS previous_summary
         FROM runs r JOIN agents a ON a.id = r.workflow_id
        WHERE r.id = $1 AND r.is_completed AND r.erased_at IS NULL`,
        [runId],
      );
      return row ?? null;
    },

    /** The run's annotations and usage, its row locked until the transaction ends; null when there is no such run. */
    async lockAnalysisState(runId: number): Promise<AnalysisState | null> {
      const [row] = await manager.query<AnalysisState[]>(
        `SELECT annotations, analysis_history, call_duration_seconds, platform_token_usage::float8 AS platform_token_usage, usage_info
           FROM runs WHERE id = $1 FOR UPDATE`,
        [runId],
      );
      return row ?? null;
    },

    /** Writes an analysis's annotations, history, tokens and charge (and the cost info, where the run has it). */
    async writeAnalysis(runId: number, write: AnalysisWrite): Promise<void> {
      await manager.query(
        `UPDATE runs
            SET annotations = $2::jsonb, analysis_history = $3::jsonb, platform_token_usage = $4, usage_info = $5::jsonb,
                charge_usd = $6,
                cost_info = CASE WHEN cost_info IS NULL THEN NULL
                                 ELSE cost_info || jsonb_build_object('platform_token_usage', $4::numeric, 'charge_usd', $6::numeric) END,
                updated_at = now()
          WHERE id = $1`,
        [
          runId,
          JSON.stringify(write.annotations),
          JSON.stringify(write.analysisHistory),
          write.platformTokenUsage,
          JSON.stringify(write.usageInfo),
          write.chargeUsd,
        ],
      );
    },

    /** The organization's run as a rerun of its analysis checks it; null when it is missing or another's. */
    async rerunCandidate(organizationId: number, runId: number): Promise<RerunCandidate | null> {
      const [run] = await manager.query<RerunCandidate[]>(
        `SELECT r.is_completed, r.erased_at IS NOT NULL AS erased, v.workflow_definition AS definition
       FROM runs r
       JOIN agents a ON a.id = r.workflow_id
       LEFT JOIN agent_versions v ON v.id = a.current_definition_id
      WHERE r.id = $1 AND r.organization_id = $2`,
        [runId, organizationId],
      );
      return run ?? null;
    },
  };
}

export const createRunAnalysisRepository = (dataSource: DataSource) =>
  repositoryOver(dataSource, runAnalysisStatements);

export type RunAnalysisRepository = ReturnType<typeof createRunAnalysisRepository>;
