import { Context } from '@temporalio/activity';
import { createCallRecords } from '../domain/calls/call-records';
import {
  createPreCallFetchStep,
  type PreCallFetchInput,
  type PreCallFetchResult,
  type PreCallFetchStepDeps,
} from '../domain/calls/pre-call-fetch-step';

export type PreCallFetchDeps = Omit<PreCallFetchStepDeps, 'records'>;

/**
 * The call workflow's step before the conversation (before the dial of an outbound call): the
 * agent's pre-call fetch (`domain/calls/pre-call-fetch-step.ts`); the workflow's history sees
 * only its status. A cancelled activity stops the fetch.
 */
export function createPreCallFetchActivities(deps: PreCallFetchDeps) {
  const preCallFetch = createPreCallFetchStep({ ...deps, records: createCallRecords(deps.dataSource) });
  return {
    preCallFetch: (input: PreCallFetchInput): Promise<PreCallFetchResult> =>
      preCallFetch(input, Context.current().cancellationSignal),
  };
}
