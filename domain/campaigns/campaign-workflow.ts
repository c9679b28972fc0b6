import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Campaign } from '../../entities';
import type { campaignWorkflow } from '../../workflows/campaign.workflow';
import { campaignWorkflowId } from '../../workflows/definitions';
import type { CampaignState } from './settings';
import {
  AgentIdAttribute,
  CampaignIdAttribute,
  CampaignStateAttribute,
  OrganizationIdAttribute,
} from '../../workflows/search-attributes';
import { ConflictError } from '../errors';
import { settingsOf } from './campaign-settings';

/** Started by its type name, checked against its signature: the API loads no workflow code. */
type CampaignWorkflow = typeof campaignWorkflow;
const CAMPAIGN_WORKFLOW_TYPE = 'campaignWorkflow';

/**
 * Every call to Temporal from a campaign route ends within this time (the SDK would otherwise
 * retry an unreachable server for much longer): past it the route answers 503. It also bounds how
 * long an Update waits for a worker to accept it.
 */
export const TEMPORAL_CALL_TIMEOUT_MS = 10_000;

export const withinDeadline = <T>(temporal: Client, call: () => Promise<T>): Promise<T> =>
  temporal.connection.withDeadline(Date.now() + TEMPORAL_CALL_TIMEOUT_MS, call);

/** Starts `campaign-<id>`; a second start of the same campaign is refused by Temporal (REJECT_DUPLICATE). */
export async function startCampaignWorkflow(temporal: Client, taskQueue: string, campaign: Campaign): Promise<void> {
  await withinDeadline(temporal, () =>
    temporal.workflow.start<CampaignWorkflow>(CAMPAIGN_WORKFLOW_TYPE, {
      workflowId: campaignWorkflowId(campaign.id),
      taskQueue,
      args: [{ campaignId: campaign.id }],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: CampaignIdAttribute, value: campaign.id },
        { key: OrganizationIdAttribute, value: campaign.organizationId },
        { key: AgentIdAttribute, value: campaign.agentId },
        { key: CampaignStateAttribute, value: 'running' },
      ],
      memo: { campaignName: campaign.name },
      ...campaignUiMetadata(campaign),
    }),
  );
}

/** What the Temporal UI's workflow list and page show of the campaign without opening its input. */
function campaignUiMetadata(campaign: Campaign): { staticSummary: string; staticDetails: string } {
  const { retry_config: retry, schedule_config: schedule, circuit_breaker: breaker } = settingsOf(campaign);
  return {
    staticSummary: `Campaign ${campaign.id} "${campaign.name}" · agent ${campaign.agentId}`,
    staticDetails: [
      `Campaign **${campaign.id}** "${campaign.name}" of organization ${campaign.organizationId}`,
      `Agent ${campaign.agentId} · contacts from source \`${campaign.sourceId}\``,
      `At most ${campaign.maxConcurrency ?? 'the default number of'} calls at once · ` +
        (retry.enabled ? `up to ${retry.max_retries} retries after ${retry.retry_delay_seconds} s` : 'no retries'),
      schedule?.enabled
        ? `Calls within ${schedule.slots.length} weekly window(s), ${schedule.timezone}`
        : 'Calls at any time',
      breaker.enabled ? `Pauses itself above ${breaker.failure_threshold * 100}% failures` : 'No circuit breaker',
    ].join('\n\n'),
  };
}

/** Whether `campaign-<id>` is running: a draft whose workflow runs has been started already. */
export async function campaignWorkflowRuns(temporal: Client, campaignId: number): Promise<boolean> {
  try {
    const handle = temporal.workflow.getHandle(campaignWorkflowId(campaignId));
    const description = await withinDeadline(temporal, () => handle.describe());
    return description.status.name === 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * Sends a transition or configuration Update and returns the state the workflow answers with.
 * The workflow's `CampaignStateConflict` rejection becomes a 409 with its message (which names the
 * current state); a workflow that has already ended, a 409 with `closedDetail`.
 */
export async function sendCampaignUpdate(
  temporal: Client,
  campaignId: number,
  send: (handle: WorkflowHandle) => Promise<CampaignState>,
  conflictDetail: (message: string) => string,
  closedDetail: string,
): Promise<CampaignState> {
  try {
    const handle = temporal.workflow.getHandle(campaignWorkflowId(campaignId));
    return await withinDeadline(temporal, () => send(handle));
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      const cause = error.cause;
      if (cause instanceof ApplicationFailure && cause.type === 'CampaignStateConflict') {
        throw new ConflictError(conflictDetail(cause.message));
      }
    }
    if (error instanceof WorkflowNotFoundError) throw new ConflictError(closedDetail);
    throw error;
  }
}
