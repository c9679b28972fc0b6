import { Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { recordPreCallFetch } from '../entities/repositories/run.repository';
import type { AgentVersionCache } from '../domain/agents/version-cache';
import {
  fetchesFor,
  preCallFetchSettings,
  runPreCallFetch,
  type PreCallFetchLog,
} from '../domain/calls/pre-call-fetch';
import type { ToolRunnerDeps } from '../domain/tools/tool-runner';
import { createCallRecords } from './call-records';

export interface PreCallFetchDeps {
  dataSource: DataSource;
  versions: AgentVersionCache;
  /** The outbound guard, credentials and signature, as HTTP tools use them. */
  outbound: ToolRunnerDeps;
}

export interface PreCallFetchInput {
  runId: number;
  direction: 'inbound' | 'outbound';
}

/** What the workflow learns: whether a fetch ran and how it went (none of the answer's values). */
export type PreCallFetchResult = { fetched: false } | { fetched: true; status: PreCallFetchLog['status'] };

/**
 * The call workflow's step before the conversation (before the dial of an outbound call): the
 * agent's pre-call fetch, when its start node asks for one in this direction. The answer goes
 * into the run's `initial_context` and what happened into `logs.pre_call_fetch`, in one statement;
 * the workflow's history sees only the status.
 */
export function createPreCallFetchActivities({ dataSource, versions, outbound }: PreCallFetchDeps) {
  const records = createCallRecords(dataSource);
  return {
    async preCallFetch({ runId, direction }: PreCallFetchInput): Promise<PreCallFetchResult> {
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
        Context.current().cancellationSignal,
      );
      await recordPreCallFetch(dataSource, runId, { context, log });
      return { fetched: true, status: log.status };
    },
  };
}
