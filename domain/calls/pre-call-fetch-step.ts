import type { DataSource } from 'typeorm';
import { recordPreCallFetch } from '../../entities/repositories/run.repository';
import type { AgentVersionCache } from '../agents/version-cache';
import type { ToolRunnerDeps } from '../tools/tool-runner';
import type { CallRecords } from './call-records';
import { fetchesFor, preCallFetchSettings, runPreCallFetch, type PreCallFetchLog } from './pre-call-fetch';

export interface PreCallFetchInput {
  runId: number;
  direction: 'inbound' | 'outbound';
}

/** What the workflow learns: whether a fetch ran and how it went (none of the answer's values). */
export type PreCallFetchResult = { fetched: false } | { fetched: true; status: PreCallFetchLog['status'] };

export interface PreCallFetchStepDeps {
  dataSource: DataSource;
  records: CallRecords;
  versions: AgentVersionCache;
  /** The outbound guard, credentials and signature, as HTTP tools use them. */
  outbound: ToolRunnerDeps;
}

/**
 * The agent's pre-call fetch for a run, when its start node asks for one in this direction. The
 * answer goes into the run's `initial_context` and what happened into `logs.pre_call_fetch`, in
 * one statement; the caller learns only the status. `signal` stops a fetch under way.
 */
export function createPreCallFetchStep({ dataSource, records, versions, outbound }: PreCallFetchStepDeps) {
  return async ({ runId, direction }: PreCallFetchInput, signal?: AbortSignal): Promise<PreCallFetchResult> => {
    const run = await records.load(runId);
    const settings = preCallFetchSettings((await versions.get(run.agentVersionId)).workflowDefinition);
    if (!fetchesFor(settings, direction) || settings.url === undefined) return { fetched: false };
    const { log, context } = await runPreCallFetch(
      outbound,
      { ...settings, url: settings.url },
      {
        runId,
        organizationId: run.organizationId,
        direction,
        calledNumber: run.calledNumber,
        callerNumber: run.callerNumber,
        initialContext: run.initialContext,
      },
      signal,
    );
    await recordPreCallFetch(dataSource, runId, { context, log });
    return { fetched: true, status: log.status };
  };
}
