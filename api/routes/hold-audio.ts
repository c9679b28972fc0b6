import { holdAudioMp3, holdAudioWav } from '../../voice/hold-audio';
import { defineRoute, type Route } from '../route';
import { z } from '../zod';

/** A day: the audio only changes with a release, and providers fetch it for every transfer. */
const CACHE_SECONDS = 86_400;

interface HoldAudioFile {
  extension: 'wav' | 'mp3';
  operationId: string;
  summary: string;
  description: string;
  contentType: string;
  bytes: () => Buffer;
}

/** One public audio file: no credentials, since providers fetch it through `PUBLIC_BASE_URL`. */
const holdAudioRoute = ({ extension, operationId, summary, description, contentType, bytes }: HoldAudioFile): Route =>
  defineRoute(
    {
      method: 'get',
      path: `/telephony/hold-audio.${extension}`,
      operationId,
      summary,
      description: `${description} No credentials: providers fetch it through \`PUBLIC_BASE_URL\`.`,
      tags: ['telephony'],
      security: [],
      responses: {
        200: {
          description: 'The hold audio (`Cache-Control: public`)',
          schema: z.string().openapi({ format: 'binary' }),
          contentType,
        },
      },
    },
    (ctx) => {
      const body = bytes();
      ctx.type = contentType;
      ctx.set('Cache-Control', `public, max-age=${CACHE_SECONDS}`);
      ctx.length = body.length;
      ctx.body = body;
      return Promise.resolve();
    },
  );

/** The audio callers hear while a transfer's destination rings, as WAV and as MP3. */
export function createHoldAudioRoutes(): Route[] {
  return [
    holdAudioRoute({
      extension: 'wav',
      operationId: 'getHoldAudio',
      summary: 'The hold audio of transfers',
      description:
        'A short, calm chime melody (about 4 s, 16-bit PCM WAV, mono, 8 kHz) that telephony providers play ' +
        "to the caller, looped, while a transfer's destination rings.",
      contentType: 'audio/wav',
      bytes: holdAudioWav,
    }),
    holdAudioRoute({
      extension: 'mp3',
      operationId: 'getHoldAudioMp3',
      summary: 'The hold audio of transfers, as MP3',
      description:
        'The same melody as `hold-audio.wav`, as MP3 (mono, 8 kHz, 16 kbit/s), for providers that play hold ' +
        "music from MP3 files only (Vonage's conversation and connect actions).",
      contentType: 'audio/mpeg',
      bytes: holdAudioMp3,
    }),
  ];
}
