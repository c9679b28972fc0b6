import type { DataSource } from 'typeorm';
import {
  createRunAnalysisRepository,
  type RunAnalysisRepository,
} from '../../entities/repositories/run-analysis.repository';
import type { TranscriptLine, TurnLatency } from '../../agent-runtime/contract';
import { chargeUsd, type Prices } from '../runs/run-queries';
import type { AnalysisAnnotations } from './analyze-call';
import type { AnalysisUsage, CallForAnalysis } from './types';

/** The annotation keys an analysis owns: replaced whole by the next one, kept in the history. */
const ANALYSIS_KEY = /^qa_/;
const ANALYSIS_KEYS = new Set(['tags', 'analysis', 'analysis_run']);
export const isAnalysisKey = (key: string): boolean => ANALYSIS_KEY.test(key) || ANALYSIS_KEYS.has(key);

/** `annotations.analysis_run`: which analysis the results are, when, why, and its tokens. */
export interface AnalysisRunInfo {
  /** `call` for the analysis after the call; a rerun's own id. */
  id: string;
  trigger: 'call' | 'rerun';
  at: string;
  /** The agent version whose QA nodes ran. */
  agent_version_id: number;
  total_tokens: number;
}

/** A run as the analysis reads it. */
export interface RunForAnalysis {
  id: number;
  organizationId: number;
  agentId: number;
  agentVersionId: number;
  currentVersionId: number | null;
  call: Omit<CallForAnalysis, 'visited'> & { nodePath: string[] };
  /** The analysis the run already has (its id), if any. */
  appliedIds: string[];
}

/** Reading a run for its analysis and writing the results back (the previous one kept in the history). */
export class RunAnalysisStore {
  private readonly runs: RunAnalysisRepository;

  constructor(
    dataSource: DataSource,
    private readonly prices: Prices,
  ) {
    this.runs = createRunAnalysisRepository(dataSource);
  }

  async load(runId: number): Promise<RunForAnalysis | null> {
    const row = await this.runs.runForAnalysis(runId);
    if (!row) return null;
    const logs = row.logs;
    const callStatus = typeof row.gathered_context.call_status === 'string' ? row.gathered_context.call_status : '';
    const run = (row.annotations.analysis_run ?? null) as AnalysisRunInfo | null;
    return {
      id: row.id,
      organizationId: row.organization_id,
      agentId: row.workflow_id,
      agentVersionId: row.definition_id,
      currentVersionId: row.current_definition_id,
      appliedIds: [
        ...(run ? [run.id] : []),
        ...row.analysis_history.flatMap((entry) => {
          const id = (entry.analysis_run as AnalysisRunInfo | undefined)?.id;
          return id ? [id] : [];
        }),
      ],
      call: {
        runId: row.id,
        callStatus,
        disposition: row.disposition,
        durationSeconds: row.call_duration_seconds,
        transcript: Array.isArray(logs.transcript) ? (logs.transcript as TranscriptLine[]) : [],
        nodePath: Array.isArray(logs.node_path) ? (logs.node_path as string[]) : [],
        gatheredContext: row.gathered_context,
        ...(typeof logs.ended_by === 'string' ? { endedBy: logs.ended_by } : {}),
        voicemail: callStatus === 'voicemail' || row.disposition === 'voicemail_left' || logs.ended_by === 'voicemail',
        ...(Array.isArray(logs.turn_latency) ? { turnLatency: logs.turn_latency as TurnLatency[] } : {}),
        ...(row.previous_summary ? { previousSummary: row.previous_summary } : {}),
      },
    };
  }

  /**
   * Writes one analysis's results over the previous one, which moves to `analysis_history`, and
   * adds its tokens to the run's usage and charge, in one transaction. An analysis already written
   * (an activity run again after a crash) changes nothing: false.
   */
  async save(
    runId: number,
    results: AnalysisAnnotations,
    info: AnalysisRunInfo,
    usage: AnalysisUsage[],
  ): Promise<boolean> {
    return this.runs.transaction(async (runs) => {
      const row = await runs.lockAnalysisState(runId);
      if (!row) return false;
      const current = row.annotations.analysis_run as AnalysisRunInfo | undefined;
      const applied = [current?.id, ...row.analysis_history.map((entry) => (entry.analysis_run as AnalysisRunInfo).id)];
      if (applied.includes(info.id)) return false;
      const kept = Object.fromEntries(Object.entries(row.annotations).filter(([key]) => !isAnalysisKey(key)));
      const previous = Object.fromEntries(Object.entries(row.annotations).filter(([key]) => isAnalysisKey(key)));
      const history = current ? [...row.analysis_history, previous] : row.analysis_history;
      const tokens = usage.reduce((sum, entry) => sum + entry.totalTokens, 0);
      const platformTokens = row.platform_token_usage + tokens;
      const usageInfo =
        tokens > 0 ? { ...row.usage_info, analysis: addUsage(row.usage_info.analysis, usage) } : row.usage_info;
      const charge = chargeUsd(row.call_duration_seconds, platformTokens, this.prices);
      await runs.writeAnalysis(runId, {
        annotations: { ...kept, ...results, analysis_run: info },
        analysisHistory: history,
        platformTokenUsage: platformTokens,
        usageInfo,
        chargeUsd: charge,
      });
      return true;
    });
  }
}

/** `usage_info.analysis`: every analysis's tokens, summed, with the models that used them. */
function addUsage(stored: unknown, usage: AnalysisUsage[]): Record<string, unknown> {
  const before = (stored ?? {}) as {
    models?: string[];
    prompt_tokens?: number;
    completion_tokens?: number;
    total_tokens?: number;
  };
  const sum = (key: 'promptTokens' | 'completionTokens' | 'totalTokens') =>
    usage.reduce((total, entry) => total + entry[key], 0);
  return {
    models: [...new Set([...(before.models ?? []), ...usage.map((entry) => entry.model)])],
    prompt_tokens: (before.prompt_tokens ?? 0) + sum('promptTokens'),
    completion_tokens: (before.completion_tokens ?? 0) + sum('completionTokens'),
    total_tokens: (before.total_tokens ?? 0) + sum('totalTokens'),
  };
}
