import type { DataSource } from 'typeorm';
import {
  createDataLifecycleRepository,
  type DataLifecycleStatements,
} from '../../entities/repositories/data-lifecycle.repository';
import type { Actor } from '../actor';
import { ConflictError, NotFoundError } from '../errors';
import type { RecordingStore } from '../../voice/recording-store';
import { eraseRuns, removeRecording } from './run-erasure';

/** A campaign in one of these states dials no more: it may be deleted, and its list with it. */
export const FINISHED_CAMPAIGN_STATES = ['completed', 'failed', 'cancelled'] as const;

/**
 * Deletes a contact list and its contacts. Refused while a campaign that has not finished uses it.
 * Finished campaigns that dialed it keep their counters and logs; their `source_id` becomes null,
 * and their attempts (which named the contacts) go with the contacts.
 */
export async function deleteContactList(dataSource: DataSource, caller: Actor, sourceId: string): Promise<void> {
  await createDataLifecycleRepository(dataSource).transaction(async (lifecycle) => {
    if (!(await lifecycle.lockContactList(caller.organizationId, sourceId))) {
      throw new NotFoundError('Contact list not found');
    }
    // The campaigns' rows are locked too: none can start (or be created) over the list meanwhile.
    const unfinished = await lifecycle.lockUnfinishedCampaignsOf(sourceId, FINISHED_CAMPAIGN_STATES);
    if (unfinished.length > 0) {
      const named = unfinished.map((campaign) => `${campaign.id} (${campaign.state})`).join(', ');
      throw new ConflictError(`The contact list is used by campaigns that have not finished: ${named}`);
    }
    await lifecycle.deleteContactList(sourceId);
  });
}

/**
 * Deletes a finished campaign with its attempts and logs. Its runs stay with their agent (they are
 * the agent's calls and the organization's usage), no longer linked to a campaign.
 */
export async function deleteCampaign(dataSource: DataSource, caller: Actor, campaignId: number): Promise<void> {
  await createDataLifecycleRepository(dataSource).transaction(async (lifecycle) => {
    const state = await lifecycle.lockCampaignState(caller.organizationId, campaignId);
    if (state === null) throw new NotFoundError('Campaign not found');
    if (!(FINISHED_CAMPAIGN_STATES as readonly string[]).includes(state)) {
      throw new ConflictError(
        `Only a finished campaign (${FINISHED_CAMPAIGN_STATES.join(', ')}) can be deleted, current state: ${state}`,
      );
    }
    await lifecycle.deleteCampaign(campaignId);
  });
}

async function findRun(lifecycle: DataLifecycleStatements, caller: Actor, agentId: number, runId: number) {
  const run = await lifecycle.runToErase(caller.organizationId, agentId, runId);
  if (!run) throw new NotFoundError('Workflow run not found');
  return run;
}

/**
 * Erases a run: its transcript, recording, contexts and analysis go; its duration, tokens and
 * charge stay, so the run remains in lists and the usage report as an erased usage record.
 */
export async function deleteRun(
  dataSource: DataSource,
  recordings: RecordingStore,
  caller: Actor,
  agentId: number,
  runId: number,
): Promise<void> {
  const lifecycle = createDataLifecycleRepository(dataSource);
  const run = await findRun(lifecycle, caller, agentId, runId);
  if (run.state === 'running') throw new ConflictError('The run is in progress: delete it once its call has ended');
  await eraseRuns(lifecycle, recordings, caller.organizationId, [runId]);
}

/** Deletes a run's recording. */
export async function deleteRecording(
  dataSource: DataSource,
  recordings: RecordingStore,
  caller: Actor,
  agentId: number,
  runId: number,
): Promise<void> {
  const lifecycle = createDataLifecycleRepository(dataSource);
  const run = await findRun(lifecycle, caller, agentId, runId);
  if (!run.recording_url) throw new NotFoundError('Recording not found');
  await removeRecording(lifecycle, recordings, caller.organizationId, runId);
}
