import { z } from 'zod';

/**
 * Plivo audio-stream frames (provider-wire-formats §2.5), also Vobiz's (§3: the same frames, but
 * no `stop`: the socket just closes). JSON text. Sequence numbers (numbers here, not Twilio's
 * strings) are not read: nothing here needs them.
 */
const Start = z.object({
  event: z.literal('start'),
  start: z.object({
    callId: z.string(),
    streamId: z.string(),
    accountId: z.string().optional(),
    tracks: z.array(z.string()).optional(),
    mediaFormat: z.object({ encoding: z.string(), sampleRate: z.number() }),
  }),
  /** The `<Stream extraHeaders>` of the answer XML, `k=v;k=v`. */
  extra_headers: z.string().optional(),
});

export const PlivoInboundFrame = z.discriminatedUnion('event', [
  Start,
  z.object({
    event: z.literal('media'),
    streamId: z.string().optional(),
    media: z.object({ track: z.string().optional(), payload: z.string() }),
  }),
  // §2.5 names `dtmf` without its fields; Plivo's docs put the digit in `dtmf.digit` (as Twilio does).
  z.object({ event: z.literal('dtmf'), streamId: z.string().optional(), dtmf: z.object({ digit: z.string() }) }),
  z.object({ event: z.literal('playedStream'), streamId: z.string().optional(), name: z.string() }),
  z.object({ event: z.literal('clearedAudio'), streamId: z.string().optional() }),
  z.object({ event: z.literal('stop') }),
]);
export type PlivoInboundFrame = z.infer<typeof PlivoInboundFrame>;

/** `runId=123;k=v` to `{runId: '123', k: 'v'}`. */
export function parseExtraHeaders(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0) out[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return out;
}

/** Outbound: agent audio, a checkpoint Plivo answers with `playedStream`, and clearAudio (barge-in). */
export const plivoPlayAudio = (mulaw: Uint8Array) =>
  JSON.stringify({
    event: 'playAudio',
    media: { contentType: 'audio/x-mulaw', sampleRate: 8000, payload: Buffer.from(mulaw).toString('base64') },
  });
export const plivoCheckpoint = (streamId: string, name: string) =>
  JSON.stringify({ event: 'checkpoint', streamId, name });
export const plivoClearAudio = (streamId: string) => JSON.stringify({ event: 'clearAudio', streamId });
