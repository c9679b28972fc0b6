import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Agent, AgentVersion } from '../../entities';
import { createRunRepository } from '../../entities/repositories/run.repository';
import type { callWorkflow } from '../../workflows/call.workflow';
import { callWorkflowId, DEFAULT_MAX_CALL_DURATION_SECONDS, type CallWorkflowInput } from '../../workflows/definitions';
import { AgentIdAttribute, OrganizationIdAttribute } from '../../workflows/search-attributes';
import { ConflictError, RefusedError, TooSoonError } from '../errors';
import { claimDial, type DialRules } from '../compliance/dial-rules';
import type { CallInitiated } from './types';
import type { CallableVersion, CallRoute } from './call-targets';
import { callUiMetadata } from './ui-metadata';

/** Started by its type name, checked against its signature: the API loads no workflow code. */
type CallWorkflow = typeof callWorkflow;
const CALL_WORKFLOW_TYPE = 'callWorkflow';

export interface OutboundCall {
  agent: Agent;
  version: CallableVersion;
  route: CallRoute;
  phoneNumber: string;
  initialContext: Record<string, unknown>;
}

export const maxCallDurationOf = (version: Pick<AgentVersion, 'workflowConfigurations'>): number => {
  const value = version.workflowConfigurations.max_call_duration;
  return typeof value === 'number' && value > 0 ? value : DEFAULT_MAX_CALL_DURATION_SECONDS;
};

/**
 * Creates the outbound run and starts its call workflow (`call-<runId>`). A number on the
 * do-not-call list is refused (422) and one over a frequency cap put off (429) before any run
 * exists; an allowed dial is claimed against the caps with the run, under the key the workflow's
 * own check uses, so it is counted once. A failed start leaves the run completed with
 * `call_status` `error`, and the error goes on to the caller.
 */
export async function startOutboundCall(
  deps: { dataSource: DataSource; temporal: Client; taskQueue: string; dialRules: DialRules },
  call: OutboundCall,
  /** Told just before the workflow start: from then on the call may be placed, whatever happens next. */
  starting: () => void = () => undefined,
): Promise<CallInitiated> {
  const { agent, version, route } = call;
  // The run's id comes first so that its row is written whole in one statement: its name and
  // workflow id (and so its dial key) contain it.
  const runs = createRunRepository(deps.dataSource);
  const id = await runs.nextRunId();
  const run = { id, name: `call-${id}` };
  const initialContext = {
    ...call.initialContext,
    called_number: call.phoneNumber,
    caller_number: route.callerNumber,
    direction: 'outbound',
    provider: route.configuration.provider,
  };
  await runs.transaction(async (statements, manager) => {
    const dial = { organizationId: agent.organizationId, phoneNumber: call.phoneNumber, dialKey: `${run.name}:1` };
    const verdict = await claimDial(manager, dial, deps.dialRules);
    if (verdict.verdict === 'do_not_call') {
      throw new RefusedError(`${call.phoneNumber} is on this organization's do-not-call list; the call was not placed`);
    }
    if (verdict.verdict === 'capped') {
      const allowedAt = new Date(verdict.allowedAt).toISOString();
      throw new TooSoonError(
        `${call.phoneNumber} has reached the frequency cap (${capsText(verdict)}); it may be called again at ${allowedAt}`,
        Math.max(1, Math.ceil((verdict.allowedAt - Date.now()) / 1000)),
      );
    }
    await statements.insertOutboundRun({
      id,
      name: run.name,
      temporalWorkflowId: callWorkflowId(id),
      organizationId: agent.organizationId,
      agentId: agent.id,
      agentVersionId: version.id,
      provider: route.configuration.provider,
      telephonyConfigurationId: route.configuration.id,
      calledNumber: call.phoneNumber,
      callerNumber: route.callerNumber,
      initialContext,
    });
  });
  starting();
  try {
    await startCallWorkflow(deps, { id: run.id, otherParty: call.phoneNumber }, agent, {
      runId: run.id,
      attempt: 1,
      maxDurationSeconds: maxCallDurationOf(version),
      conversation: route.conversation,
      provider: route.configuration.provider,
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      throw new ConflictError(`Call workflow ${callWorkflowId(run.id)} already exists`);
    }
    throw error;
  }
  return { status: 'initiated', workflow_run_id: run.id, workflow_run_name: run.name };
}

/** `3 calls per 24 hours and 10 per 7 days`, naming the caps that are set. */
const capsText = ({ perDay, perWeek }: { perDay: number; perWeek: number }): string =>
  [perDay > 0 ? `${perDay} calls per 24 hours` : '', perWeek > 0 ? `${perWeek} calls per 7 days` : '']
    .filter(Boolean)
    .join(' and ');

/**
 * Starts the run's call workflow (`call-<runId>`), findable by agent and organization in the
 * Temporal UI and described there by the other party's masked number. A failed start leaves the
 * run completed with `call_status` `error`, and rethrows.
 */
export async function startCallWorkflow(
  deps: { dataSource: DataSource; temporal: Client; taskQueue: string },
  /** `otherParty`: the number called, or the caller's of an inbound call. */
  run: { id: number; otherParty: string | null },
  agent: Agent,
  input: CallWorkflowInput,
): Promise<void> {
  try {
    await deps.temporal.workflow.start<CallWorkflow>(CALL_WORKFLOW_TYPE, {
      workflowId: callWorkflowId(run.id),
      taskQueue: deps.taskQueue,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: AgentIdAttribute, value: agent.id },
        { key: OrganizationIdAttribute, value: agent.organizationId },
      ],
      memo: { run_id: run.id },
      ...callUiMetadata({ runId: run.id, agentId: agent.id, otherParty: run.otherParty }, input),
    });
  } catch (error) {
    await createRunRepository(deps.dataSource).markStartFailed(run.id);
    throw error;
  }
}
