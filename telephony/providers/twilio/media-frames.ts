import { z } from 'zod';

/** Twilio Media Streams frames (provider-wire-formats §1.5): JSON text; sequence numbers are strings. */
const Start = z.object({
  event: z.literal('start'),
  streamSid: z.string(),
  start: z.object({
    streamSid: z.string(),
    accountSid: z.string().optional(),
    callSid: z.string().optional(),
    tracks: z.array(z.string()).optional(),
    customParameters: z.record(z.string(), z.string()).optional(),
    mediaFormat: z.object({ encoding: z.string(), sampleRate: z.number(), channels: z.number() }),
  }),
});

export const TwilioInboundFrame = z.discriminatedUnion('event', [
  z.object({ event: z.literal('connected'), protocol: z.string().optional(), version: z.string().optional() }),
  Start,
  z.object({
    event: z.literal('media'),
    media: z.object({ track: z.string().optional(), payload: z.string() }),
  }),
  z.object({ event: z.literal('mark'), mark: z.object({ name: z.string() }) }),
  z.object({ event: z.literal('dtmf'), dtmf: z.object({ digit: z.string() }) }),
  z.object({ event: z.literal('stop') }),
]);

export type TwilioInboundFrame = z.infer<typeof TwilioInboundFrame>;

/** What Switchboard sends back: agent audio, a mark to be echoed once played, and clear (barge-in). */
export const twilioMedia = (streamSid: string, mulaw: Uint8Array) =>
  JSON.stringify({ event: 'media', streamSid, media: { payload: Buffer.from(mulaw).toString('base64') } });
export const twilioMark = (streamSid: string, name: string) =>
  JSON.stringify({ event: 'mark', streamSid, mark: { name } });
export const twilioClear = (streamSid: string) => JSON.stringify({ event: 'clear', streamSid });
