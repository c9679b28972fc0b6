import type { DataSource } from 'typeorm';
import type { AgentVersionCache } from '../agents/version-cache';
import { enabledQaSettingsOf } from '../analysis/qa-settings';
import { listOptOut } from '../compliance/do-not-call';
import type { Prices } from '../runs/run-queries';
import { postCallWebhooksOf, type PostCallWebhook } from '../webhooks/post-call-nodes';
import type { CallRecords } from './call-records';
import { runOutcomeOf, type CallEnding } from './run-outcome';

export interface FinalizeRunInput extends CallEnding {
  runId: number;
}

export interface FinalizedRun {
  /** The enabled webhook nodes of the run's agent version. */
  postCallWebhooks: PostCallWebhook[];
  /** The run's agent version has an enabled QA node: the call is analysed once concluded. */
  analyze?: boolean;
}

export interface FinalizeRunDeps {
  dataSource: DataSource;
  records: CallRecords;
  versions: AgentVersionCache;
  prices: Prices;
}

/**
 * Writes the call's one outcome (a run already completed is left as it is) and answers what
 * follows it: the webhooks the finished call sends and whether it is analysed.
 */
export function createFinalizeRun({ dataSource, records, versions, prices }: FinalizeRunDeps) {
  return async ({ runId, ...ending }: FinalizeRunInput): Promise<FinalizedRun> => {
    // The callee asked not to be called again: listed before the run completes and webhooks go out.
    if (ending.conversation?.optOut) await listOptOut(dataSource, runId);
    const agentVersionId = await records.complete(runId, runOutcomeOf(ending, prices, new Date()));
    if (agentVersionId === undefined) return { postCallWebhooks: [], analyze: false };
    return {
      postCallWebhooks: await postCallWebhooksOf(versions, agentVersionId),
      analyze: enabledQaSettingsOf((await versions.get(agentVersionId)).workflowDefinition).length > 0,
    };
  };
}
