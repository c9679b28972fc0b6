import { createRecordingStore } from '../../voice/recording-store';
import { requestedRange } from '../byte-range';
import type { ApiDeps } from '../context';
import { RangeNotSatisfiableError, ServiceUnavailableError } from '../errors';
import { NotFoundError } from '../../domain/errors';
import { RECORDING_NOT_FOUND as NO_RECORDING, recordedRunId } from '../../domain/runs/run-artifacts';
import { defineRoute, errorResponse, type Route } from '../route';
import { WorkflowRunParams } from '../schemas/runs';
import { z } from '../zod';

/** Local disk or S3 failed us: 503, with the cause logged by the error middleware. */
async function fromStorage<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw Object.assign(new ServiceUnavailableError('Recording storage is unavailable'), { cause: error });
  }
}

/** The run's two-track recording, served to its organization only (as the transcript is). */
export function createRecordingRoutes({ dataSource, config, logger }: ApiDeps): Route[] {
  const recordings = createRecordingStore(config, logger);
  return [
    defineRoute(
      {
        method: 'get',
        path: '/workflow/{workflow_id}/runs/{run_id}/recording',
        operationId: 'getRunRecording',
        summary: "A run's call recording",
        description:
          'A stereo 16-bit WAV at 8 kHz: left channel the caller, right channel the agent, aligned in time. ' +
          "It exists once the call's media stream has ended (the run's `recording_url` then points here). " +
          'Served from local disk or, when the service keeps recordings in S3, streamed from the bucket. ' +
          'A single `Range: bytes=…` answers 206 with `Content-Range`; several ranges, or any `If-Range`, ' +
          'answer the whole file.',
        tags: ['runs'],
        security: ['ApiKey', 'SessionToken'],
        params: WorkflowRunParams,
        responses: {
          200: {
            description: 'The recording (`Accept-Ranges: bytes`)',
            schema: z.string().openapi({ format: 'binary' }),
            contentType: 'audio/wav',
          },
          206: {
            description: 'The requested byte range of the recording (`Content-Range: bytes start-end/size`)',
            schema: z.string().openapi({ format: 'binary' }),
            contentType: 'audio/wav',
          },
          404: errorResponse('Workflow run not found, or it has no recording'),
          416: errorResponse('No range it names lies within the recording (`Content-Range: bytes */size`)'),
          503: errorResponse('PostgreSQL, or the recording storage (local disk or S3), unavailable'),
        },
      },
      async (ctx, { params, auth }) => {
        const runId = await recordedRunId(dataSource, auth, params.workflow_id, params.run_id);
        const recording = await fromStorage(() => recordings.find(runId));
        if (!recording) throw new NotFoundError(NO_RECORDING);
        const range = requestedRange({ range: ctx.get('Range'), ifRange: ctx.get('If-Range') }, recording.size);
        if (range === 'unsatisfiable') throw new RangeNotSatisfiableError(recording.size);
        ctx.set('Accept-Ranges', 'bytes');
        ctx.type = 'audio/wav';
        if (range) {
          ctx.status = 206;
          ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${recording.size}`);
          ctx.length = range.end - range.start + 1;
          ctx.body = await fromStorage(() => recording.open(range));
        } else {
          ctx.length = recording.size;
          ctx.body = await fromStorage(() => recording.open());
        }
      },
    ),
  ];
}
