import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Run } from '../../entities';
import { recordingPath } from '../../voice/recordings';
import type { ApiDeps } from '../context';
import { NotFoundError } from '../errors';
import { defineRoute, errorResponse, type Route } from '../route';
import { WorkflowRunParams } from '../schemas/runs';
import { z } from '../zod';

const NO_RECORDING = 'Recording not found';

/** The run's two-track recording, served to its organization only (as the transcript is). */
export function createRecordingRoutes({ dataSource, config }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/workflow/{workflow_id}/runs/{run_id}/recording',
        summary: "A run's call recording",
        description:
          'A stereo 16-bit WAV at 8 kHz: left channel the caller, right channel the agent, aligned in time. ' +
          "It exists once the call's media stream has ended (the run's `recording_url` then points here).",
        tags: ['runs'],
        security: ['ApiKey', 'SessionToken'],
        params: WorkflowRunParams,
        responses: {
          200: {
            description: 'The recording',
            schema: z.string().openapi({ format: 'binary' }),
            contentType: 'audio/wav',
          },
          404: errorResponse('Workflow run not found, or it has no recording'),
        },
      },
      async (ctx, { params, auth }) => {
        const run = await dataSource.getRepository(Run).findOne({
          where: { id: params.run_id, workflowId: params.workflow_id, organizationId: auth.organizationId },
          select: { id: true, recordingUrl: true },
        });
        if (!run) throw new NotFoundError('Workflow run not found');
        if (!run.recordingUrl) throw new NotFoundError(NO_RECORDING);
        const path = recordingPath(config.RECORDINGS_DIR, run.id);
        const size = await stat(path).then(
          (found) => found.size,
          () => null,
        );
        if (size === null) throw new NotFoundError(NO_RECORDING);
        ctx.type = 'audio/wav';
        ctx.length = size;
        ctx.body = createReadStream(path);
      },
    ),
  ];
}
