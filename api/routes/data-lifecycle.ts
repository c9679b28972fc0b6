import type { ApiDeps } from '../context';
import { defineRoute, errorResponse, type Route } from '../route';
import { CampaignIdParams } from '../schemas/campaigns';
import { SuccessResponse } from '../schemas/common';
import { CampaignSourceParams, ErasureRequest, ErasureResult, RetentionSetting } from '../schemas/data-lifecycle';
import { WorkflowRunParams } from '../schemas/runs';
import { deleteCampaign, deleteContactList, deleteRecording, deleteRun } from '../../domain/lifecycle/deletions';
import { erasePerson } from '../../domain/lifecycle/person-erasure';
import { getRetention, setRetention } from '../../domain/lifecycle/retention';
import { createRecordingStore } from '../../voice/recording-store';

const security = ['ApiKey', 'SessionToken'] as const;
const storageDown = errorResponse('PostgreSQL, or the recording storage (local disk or S3), unavailable');

/** Deleting what an organization stored, erasing a person's data, and how long runs keep theirs. */
export function createDataLifecycleRoutes({ dataSource, config, logger }: ApiDeps): Route[] {
  const recordings = createRecordingStore(config, logger);
  return [
    defineRoute(
      {
        method: 'delete',
        path: '/campaign/sources/{source_id}',
        operationId: 'deleteCampaignSource',
        summary: 'Delete a contact list and its contacts',
        description:
          'Refused (409) while a campaign that has not finished (draft, running, paused) uses the list; the detail ' +
          'names those campaigns. Finished campaigns that dialed it keep their counters and logs, and show ' +
          '`source_id: null`; they can no longer be redialed. The list no longer counts toward `QUOTA_CAMPAIGN_SOURCES`.',
        tags: ['campaigns'],
        security,
        params: CampaignSourceParams,
        responses: {
          200: { description: 'Deleted', schema: SuccessResponse },
          404: errorResponse("Contact list not found (or another organization's)"),
          409: errorResponse('Campaigns that have not finished use the list; the detail names them'),
        },
      },
      async (ctx, { params, auth }) => {
        await deleteContactList(dataSource, auth, params.source_id);
        ctx.state.log.info({ event: 'campaign_source_deleted', source_id: params.source_id }, 'contact list deleted');
        ctx.body = { success: true, message: 'Contact list deleted' };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/campaign/{campaign_id}',
        operationId: 'deleteCampaign',
        summary: 'Delete a finished campaign',
        description:
          'Only a `completed`, `failed` or `cancelled` campaign (409 otherwise). Its attempts and logs go with it; ' +
          'its runs stay with their agent and in the usage report, no longer linked to a campaign.',
        tags: ['campaigns'],
        security,
        params: CampaignIdParams,
        responses: {
          200: { description: 'Deleted', schema: SuccessResponse },
          404: errorResponse("Campaign not found (or another organization's)"),
          409: errorResponse('The campaign has not finished; the detail names its state'),
        },
      },
      async (ctx, { params, auth }) => {
        await deleteCampaign(dataSource, auth, params.campaign_id);
        ctx.state.log.info({ event: 'campaign_deleted', campaign_id: params.campaign_id }, 'campaign deleted');
        ctx.body = { success: true, message: 'Campaign deleted' };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/workflow/{workflow_id}/runs/{run_id}',
        operationId: 'deleteAgentRun',
        summary: "Erase a run's personal data",
        description:
          'The transcript, recording, numbers, initial and gathered context, logs and analysis are erased. The run ' +
          'stays as a usage record: its duration, tokens and charge still count in the usage report, and it is ' +
          'listed with `caller_number`/`called_number` null, empty contexts and no recording or transcript. ' +
          'Erasing an erased run again answers 200. 409 while its call is in progress.',
        tags: ['runs'],
        security,
        params: WorkflowRunParams,
        responses: {
          200: { description: 'Erased', schema: SuccessResponse },
          404: errorResponse('Workflow run not found'),
          409: errorResponse('The run is in progress'),
          503: storageDown,
        },
      },
      async (ctx, { params, auth }) => {
        await deleteRun(dataSource, recordings, auth, params.workflow_id, params.run_id);
        ctx.state.log.info({ event: 'run_erased', run_id: params.run_id }, 'run erased');
        ctx.body = { success: true, message: 'Run erased' };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/workflow/{workflow_id}/runs/{run_id}/recording',
        operationId: 'deleteRunRecording',
        summary: "Delete a run's recording",
        description:
          "Deletes the WAV from local disk and, when recordings are kept in S3, from the bucket; the run's " +
          '`recording_url` becomes null. The rest of the run is kept.',
        tags: ['runs'],
        security,
        params: WorkflowRunParams,
        responses: {
          200: { description: 'Deleted', schema: SuccessResponse },
          404: errorResponse('Workflow run not found, or it has no recording'),
          503: storageDown,
        },
      },
      async (ctx, { params, auth }) => {
        await deleteRecording(dataSource, recordings, auth, params.workflow_id, params.run_id);
        ctx.state.log.info({ event: 'recording_deleted', run_id: params.run_id }, 'recording deleted');
        ctx.body = { success: true, message: 'Recording deleted' };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/erasure',
        operationId: 'erasePerson',
        summary: "Erase a person's data, by phone number",
        description:
          "Across the organization: deletes the number's contacts from every contact list (with their campaign " +
          'attempts), and erases the personal data and recordings of every run from or to it, as deleting a run ' +
          'does. A do-not-call entry for the number stays. Runs still on the line are left whole and counted in ' +
          '`runs_in_progress`: send the request again once they have ended. Repeating the request is harmless.',
        tags: ['privacy'],
        security,
        body: ErasureRequest,
        responses: {
          200: { description: 'What was erased', schema: ErasureResult },
          503: storageDown,
        },
      },
      async (ctx, { body, auth }) => {
        const erased = await erasePerson(dataSource, recordings, auth, body.phone_number);
        // The number itself is not logged: the log would keep what was just erased.
        const { contacts_deleted, runs_erased, recordings_deleted, runs_in_progress } = erased;
        ctx.state.log.info(
          { event: 'person_erased', contacts_deleted, runs_erased, recordings_deleted, runs_in_progress },
          'person erased',
        );
        ctx.body = erased;
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/organizations/retention',
        operationId: 'getRetention',
        summary: 'How long runs keep their recordings and transcripts',
        description: 'Null `retention_days`: runs keep them until deleted.',
        tags: ['privacy'],
        security,
        responses: { 200: { description: 'The retention setting', schema: RetentionSetting } },
      },
      async (ctx, { auth }) => {
        ctx.body = await getRetention(dataSource, auth.organizationId);
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: '/organizations/retention',
        operationId: 'setRetention',
        summary: 'Set how long runs keep their recordings and transcripts',
        description:
          'A sweep (the Temporal Schedule `data-retention`, hourly) erases runs older than `retention_days` as ' +
          'deleting a run does; their usage totals stay. Null turns the sweep off for the organization.',
        tags: ['privacy'],
        security,
        body: RetentionSetting,
        responses: { 200: { description: 'The retention setting', schema: RetentionSetting } },
      },
      async (ctx, { body, auth }) => {
        ctx.body = await setRetention(dataSource, auth.organizationId, body);
      },
    ),
  ];
}
