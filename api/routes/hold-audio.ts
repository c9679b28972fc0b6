import { holdAudioMp3, holdAudioWav } from '../../voice/hold-audio';
import { defineRoute, type Route } from '../route';
import { z } from '../zod';

/** A day: the audio only changes with a release, and providers fetch it for every transfer. */
const CACHE_SECONDS = 86_400;

/** The audio callers hear while a transfer's destination rings; public, as providers fetch it. */
export function createHoldAudioRoutes(): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/telephony/hold-audio.wav',
        operationId: 'getHoldAudio',
        summary: 'The hold audio of transfers',
        description:
          'A short, calm chime melody (about 4 s, 16-bit PCM WAV, mono, 8 kHz) that telephony providers play ' +
          "to the caller, looped, while a transfer's destination rings. No credentials: providers fetch it " +
          'through `PUBLIC_BASE_URL`.',
        tags: ['telephony'],
        security: [],
        responses: {
          200: {
            description: 'The hold audio (`Cache-Control: public`)',
            schema: z.string().openapi({ format: 'binary' }),
            contentType: 'audio/wav',
          },
        },
      },
      (ctx) => {
        const wav = holdAudioWav();
        ctx.type = 'audio/wav';
        ctx.set('Cache-Control', `public, max-age=${CACHE_SECONDS}`);
        ctx.length = wav.length;
        ctx.body = wav;
        return Promise.resolve();
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/telephony/hold-audio.mp3',
        operationId: 'getHoldAudioMp3',
        summary: 'The hold audio of transfers, as MP3',
        description:
          'The same melody as `hold-audio.wav`, as MP3 (mono, 8 kHz, 16 kbit/s), for providers that play hold ' +
          "music from MP3 files only (Vonage's conversation and connect actions). No credentials.",
        tags: ['telephony'],
        security: [],
        responses: {
          200: {
            description: 'The hold audio (`Cache-Control: public`)',
            schema: z.string().openapi({ format: 'binary' }),
            contentType: 'audio/mpeg',
          },
        },
      },
      (ctx) => {
        const mp3 = holdAudioMp3();
        ctx.type = 'audio/mpeg';
        ctx.set('Cache-Control', `public, max-age=${CACHE_SECONDS}`);
        ctx.length = mp3.length;
        ctx.body = mp3;
        return Promise.resolve();
      },
    ),
  ];
}
