import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Agent, AgentVersion } from '../../entities';
import { Run } from '../../entities';
import { callWorkflow } from '../../workflows/call.workflow';
import { callWorkflowId, DEFAULT_MAX_CALL_DURATION_SECONDS, type CallWorkflowInput } from '../../workflows/definitions';
import { AgentIdAttribute, OrganizationIdAttribute } from '../../workflows/search-attributes';
import { ConflictError } from '../errors';
import type { CallInitiated } from './types';
import type { CallableVersion, CallRoute } from './call-targets';

export interface OutboundCall {
  agent: Agent;
  version: CallableVersion;
  route: CallRoute;
  phoneNumber: string;
  initialContext: Record<string, unknown>;
}

async function nextRunId(dataSource: DataSource): Promise<number> {
  const [row] = await dataSource.query<{ id: number }[]>(
    `SELECT nextval(pg_get_serial_sequence('runs', 'id'))::int AS id`,
  );
  if (!row) throw new Error('PostgreSQL gave no run id');
  return row.id;
}

export const maxCallDurationOf = (version: Pick<AgentVersion, 'workflowConfigurations'>): number => {
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
  /** Told just before the workflow start: from then on the call may be placed, whatever happens next. */
  starting: () => void = () => undefined,
): Promise<CallInitiated> {
  const { agent, version, route } = call;
  // The run's id comes first so that its row is written whole in one statement: its name and
  // workflow id contain it. Two statements instead of a transaction of four.
  const id = await nextRunId(deps.dataSource);
  const run = { id, name: `call-${id}` };
  const initialContext = {
    ...call.initialContext,
    called_number: call.phoneNumber,
    caller_number: route.callerNumber,
    direction: 'outbound',
    provider: route.configuration.provider,
  };
  await deps.dataSource.query(
    `INSERT INTO runs (id, name, temporal_workflow_id, organization_id, workflow_id, definition_id, mode,
                       call_type, telephony_configuration_id, called_number, caller_number, initial_context)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'outbound', $8, $9, $10, $11)`,
    [
      id,
      run.name,
      callWorkflowId(id),
      agent.organizationId,
      agent.id,
      version.id,
      route.configuration.provider,
      route.configuration.id,
      call.phoneNumber,
      route.callerNumber,
      JSON.stringify(initialContext),
    ],
  );
  starting();
  try {
    await startCallWorkflow(deps, run, agent, {
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

/**
 * Starts the run's call workflow (`call-<runId>`), findable by agent and organization in the
 * Temporal UI. A failed start leaves the run completed with `call_status` `error`, and rethrows.
 */
export async function startCallWorkflow(
  deps: { dataSource: DataSource; temporal: Client; taskQueue: string },
  run: Pick<Run, 'id'>,
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
