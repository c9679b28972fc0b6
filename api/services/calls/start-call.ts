import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Agent, AgentVersion } from '../../../entities';
import { Run } from '../../../entities';
import { callWorkflow } from '../../../workflows/call.workflow';
import {
  callWorkflowId,
  DEFAULT_MAX_CALL_DURATION_SECONDS,
  type CallWorkflowInput,
} from '../../../workflows/definitions';
import { AgentIdAttribute, OrganizationIdAttribute } from '../../../workflows/search-attributes';
import { ConflictError } from '../../errors';
import type { CallInitiated } from '../../schemas/calls';
import type { CallRoute } from './call-targets';

export interface OutboundCall {
  agent: Agent;
  version: AgentVersion;
  route: CallRoute;
  phoneNumber: string;
  initialContext: Record<string, unknown>;
}

export const maxCallDurationOf = (version: AgentVersion): number => {
  const value = version.workflowConfigurations.max_call_duration;
  return typeof value === 'number' && value > 0 ? value : DEFAULT_MAX_CALL_DURATION_SECONDS;
};

/**
 * Creates the outbound run and starts its call workflow (`call-<runId>`). A failed start leaves
 * the run completed with `call_status` `error`, and the error goes on to the caller.
 */
export async function startOutboundCall(
  deps: { dataSource: DataSource; temporal: Client; taskQueue: string },
  call: OutboundCall,
): Promise<CallInitiated> {
  const { agent, version, route } = call;
  const run = await deps.dataSource.transaction(async (manager) => {
    const created = await manager.save(
      manager.create(Run, {
        organizationId: agent.organizationId,
        workflowId: agent.id,
        definitionId: version.id,
        name: 'call',
        mode: route.configuration.provider,
        callType: 'outbound',
        telephonyConfigurationId: route.configuration.id,
        calledNumber: call.phoneNumber,
        callerNumber: route.callerNumber,
        initialContext: {
          ...call.initialContext,
          called_number: call.phoneNumber,
          caller_number: route.callerNumber,
          direction: 'outbound',
          provider: route.configuration.provider,
        },
      }),
    );
    created.name = `call-${created.id}`;
    created.temporalWorkflowId = callWorkflowId(created.id);
    await manager.update(
      Run,
      { id: created.id },
      { name: created.name, temporalWorkflowId: created.temporalWorkflowId },
    );
    return created;
  });
  try {
    await startCallWorkflow(deps, run, agent, {
      runId: run.id,
      attempt: 1,
      maxDurationSeconds: maxCallDurationOf(version),
      conversation: route.conversation,
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) {
      throw new ConflictError(`Call workflow ${callWorkflowId(run.id)} already exists`);
    }
    throw error;
  }
  return { status: 'initiated', workflow_run_id: run.id, workflow_run_name: run.name };
}

/**
 * Starts the run's call workflow (`call-<runId>`), findable by agent and organization in the
 * Temporal UI. A failed start leaves the run completed with `call_status` `error`, and rethrows.
 */
export async function startCallWorkflow(
  deps: { dataSource: DataSource; temporal: Client; taskQueue: string },
  run: Run,
  agent: Agent,
  input: CallWorkflowInput,
): Promise<void> {
  try {
    await deps.temporal.workflow.start(callWorkflow, {
      workflowId: callWorkflowId(run.id),
      taskQueue: deps.taskQueue,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: AgentIdAttribute, value: agent.id },
        { key: OrganizationIdAttribute, value: agent.organizationId },
      ],
      memo: { run_id: run.id },
    });
  } catch (error) {
    await deps.dataSource.getRepository(Run).update(
      { id: run.id },
      {
        isCompleted: true,
        state: 'completed',
        gatheredContext: { call_status: 'error', mapped_call_disposition: 'error' },
      },
    );
    throw error;
  }
}
