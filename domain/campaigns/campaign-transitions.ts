import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Campaign } from '../../entities';
import {
  createCampaignRepository,
  type CampaignRepository,
  type CampaignStatements,
} from '../../entities/repositories/campaign.repository';
import {
  campaignWorkflowId,
  cancelCampaignUpdate,
  configureCampaignUpdate,
  pauseCampaignUpdate,
  resumeCampaignUpdate,
  type CampaignState,
} from '../../workflows/definitions';
import type { Actor } from '../actor';
import { ConflictError, InvalidError, NotFoundError } from '../errors';
import type { CampaignView } from './types';
import type { SettingsRequest } from './campaign-settings';
import { callRoute } from '../calls/call-targets';
import { checkFallback } from './campaign-create';
import type { TelephonyServices } from '../telephony/telephony-services';
import { settingsChange, settingsColumns, settingsOf } from './campaign-settings';
import { CAMPAIGN_NOT_FOUND, campaignViewOf, findCampaign } from './campaign-views';
import { campaignWorkflowRuns, sendCampaignUpdate, startCampaignWorkflow } from './campaign-workflow';
import { checkMaxConcurrency, withCallsInFlightRoom, type CallLimits } from './call-limits';

export interface CampaignTransitionDeps {
  dataSource: DataSource;
  temporal: Client;
  taskQueue: string;
  telephony: TelephonyServices;
  /** The deployment's bounds on calls in flight, checked at start and resume. */
  limits: CallLimits;
  /** How long start, pause, resume and cancel wait for the workflow to write the new state (ms). */
  settleTimeoutMs?: number;
}

export const UPDATE_REFUSED = 'Campaign can only be updated in draft or paused state';
const SETTLE_TIMEOUT_MS = 10_000;
const SETTLE_POLL_MS = 50;

const wrongState = (action: string, allowed: string, state: CampaignState) =>
  new ConflictError(`Campaign must be in ${allowed} state to ${action}, current state: ${state}`);

const campaignsOf = (deps: CampaignTransitionDeps): CampaignRepository =>
  createCampaignRepository({ dataSource: deps.dataSource });

/** The caller's campaign row, locked for the rest of the transaction. */
async function lockCampaign(campaigns: CampaignStatements, caller: Actor, id: number): Promise<Campaign> {
  const row = await campaigns.lockOwnedCampaign(caller.organizationId, id);
  if (!row) throw new NotFoundError(CAMPAIGN_NOT_FOUND);
  return row;
}

/**
 * The campaign workflow writes the row through activities: the API waits (briefly) until the row
 * shows what the workflow accepted, so the answer matches what happens next.
 */
async function settledRow(
  deps: CampaignTransitionDeps,
  id: number,
  settled: (row: Campaign) => boolean,
): Promise<Campaign> {
  const campaigns = campaignsOf(deps);
  const deadline = Date.now() + (deps.settleTimeoutMs ?? SETTLE_TIMEOUT_MS);
  for (;;) {
    const row = await campaigns.getCampaign(id);
    if (settled(row) || Date.now() >= deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
}

/**
 * Starts a draft campaign's workflow, then answers once the workflow has marked the row running
 * (or after the settle timeout, with the row as it is). The row lock keeps a concurrent cancel
 * or PATCH of the draft from slipping in between the check and the start.
 */
export async function startCampaign(deps: CampaignTransitionDeps, caller: Actor, id: number) {
  return withCallsInFlightRoom(deps.dataSource, deps.limits, caller, id, () => beginCampaign(deps, caller, id));
}

async function beginCampaign(deps: CampaignTransitionDeps, caller: Actor, id: number) {
  await campaignsOf(deps).transaction(async (campaigns) => {
    const row = await lockCampaign(campaigns, caller, id);
    if (row.state !== 'draft') throw wrongState('start', "'draft'", row.state);
    // 400 "Telephony provider not configured for this organization" (or not ready) before anything starts.
    await callRoute(deps.dataSource, deps.telephony, caller.organizationId, {
      telephonyConfigurationId: row.telephonyConfigurationId,
    });
    try {
      await startCampaignWorkflow(deps.temporal, deps.taskQueue, row);
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) {
        throw new ConflictError(`Campaign has already been started, current state: ${row.state}`);
      }
      throw error;
    }
  });
  return campaignViewOf(deps.dataSource, await settledRow(deps, id, (row) => row.state !== 'draft'));
}

type Transition = 'pause' | 'resume' | 'cancel';

const transitions = {
  pause: { update: pauseCampaignUpdate, from: ['running'], allowed: "'running'" },
  resume: { update: resumeCampaignUpdate, from: ['paused'], allowed: "'paused'" },
  cancel: {
    update: cancelCampaignUpdate,
    from: ['draft', 'running', 'paused'],
    allowed: "'draft', 'running' or 'paused'",
  },
} as const;

/** Cancels a draft that has no workflow: the API is its only writer until it is started. */
async function cancelDraft(campaigns: CampaignStatements, row: Campaign): Promise<void> {
  await campaigns.markDraftCancelled(row.id);
  await campaigns.appendLog(row.id, {
    level: 'info',
    event: 'campaign_cancelled',
    message: 'Campaign cancelled before it was started',
    details: {},
  });
}

/**
 * Pause, resume or cancel through the workflow's Update; answers with the state it accepted. A
 * resume must find room under the organization's calls in flight limit, as a start does.
 */
export async function transitionCampaign(
  deps: CampaignTransitionDeps,
  caller: Actor,
  id: number,
  action: Transition,
): Promise<CampaignView> {
  if (action !== 'resume') return sendTransition(deps, caller, id, action);
  return withCallsInFlightRoom(deps.dataSource, deps.limits, caller, id, () =>
    sendTransition(deps, caller, id, action),
  );
}

async function sendTransition(
  deps: CampaignTransitionDeps,
  caller: Actor,
  id: number,
  action: Transition,
): Promise<CampaignView> {
  const { update, from, allowed } = transitions[action];
  const viaWorkflow = await campaignsOf(deps).transaction(async (campaigns) => {
    const row = await lockCampaign(campaigns, caller, id);
    if (!(from as readonly CampaignState[]).includes(row.state)) throw wrongState(action, allowed, row.state);
    if (row.state === 'draft' && !(await campaignWorkflowRuns(deps.temporal, id))) {
      await cancelDraft(campaigns, row);
      return false;
    }
    return true;
  });
  if (!viaWorkflow) return campaignViewOf(deps.dataSource, await findCampaign(deps.dataSource, caller, id));

  const current = await findCampaign(deps.dataSource, caller, id);
  const state = await sendCampaignUpdate(
    deps.temporal,
    id,
    (handle) => handle.executeUpdate(update),
    (message) => message,
    `Campaign workflow ${campaignWorkflowId(id)} is not running, current state: ${current.state}`,
  );
  const row = await settledRow(deps, id, (candidate) => candidate.state === state);
  return { ...(await campaignViewOf(deps.dataSource, row)), state };
}

/**
 * PATCH: a draft without a workflow is written here; a paused campaign (or a draft whose workflow
 * has just started) gets a `configureCampaign` Update and the answer shows the accepted settings.
 */
export async function updateCampaign(
  deps: CampaignTransitionDeps,
  caller: Actor,
  id: number,
  body: SettingsRequest,
): Promise<CampaignView> {
  checkMaxConcurrency(deps.limits, body.max_concurrency);
  const pending = await campaignsOf(deps).transaction(async (campaigns) => {
    const row = await lockCampaign(campaigns, caller, id);
    if (row.state !== 'draft' && row.state !== 'paused') throw new ConflictError(UPDATE_REFUSED);
    const current = settingsOf(row);
    if (
      body.fallback_caller_number != null &&
      body.fallback_telephony_configuration_id === undefined &&
      !current.fallback
    ) {
      throw new InvalidError(
        'fallback_caller_number needs fallback_telephony_configuration_id: the campaign has no fallback',
      );
    }
    const change = settingsChange(current, body);
    if (Object.keys(change).length === 0) return null;
    if (change.fallback) await checkFallback(campaigns, caller, row.telephonyConfigurationId, change.fallback);
    if (row.state === 'draft' && !(await campaignWorkflowRuns(deps.temporal, id))) {
      await campaigns.saveCampaign(Object.assign(row, settingsColumns(change), { updatedAt: new Date() }));
      await campaigns.appendLog(id, {
        level: 'info',
        event: 'config_updated',
        message: 'Campaign settings updated',
        details: { fields: Object.keys(change) },
      });
      return null;
    }
    return change;
  });
  if (pending) {
    await sendCampaignUpdate(
      deps.temporal,
      id,
      (handle) => handle.executeUpdate(configureCampaignUpdate, { args: [pending] }),
      () => UPDATE_REFUSED,
      UPDATE_REFUSED,
    );
  }
  const view = await campaignViewOf(deps.dataSource, await findCampaign(deps.dataSource, caller, id));
  if (!pending) return view;
  // The workflow stores accepted settings through an activity: show them even before it has.
  const { fallback, ...settings } = pending;
  return {
    ...view,
    ...settings,
    ...(fallback === undefined
      ? {}
      : {
          fallback_telephony_configuration_id: fallback?.telephony_configuration_id ?? null,
          fallback_caller_number: fallback?.caller_number ?? null,
        }),
  };
}
