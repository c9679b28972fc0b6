import { z } from 'zod';

/** Telnyx media-streaming frames (provider-wire-formats §4.5): JSON text, sequence numbers as strings. */
const Start = z.object({
  event: z.literal('start'),
  sequence_number: z.string().optional(),
  stream_id: z.string(),
  start: z.object({
    call_control_id: z.string().optional(),
    call_session_id: z.string().optional(),
    client_state: z.string().optional(),
    custom_parameters: z.record(z.string(), z.string()).optional(),
    media_format: z.object({ encoding: z.string(), sample_rate: z.number(), channels: z.number().default(1) }),
  }),
});

/** §4.5 lists `dtmf`, `mark` and `error` without their fields; these follow Telnyx's AsyncAPI document. */
export const TelnyxInboundFrame = z.discriminatedUnion('event', [
  z.object({ event: z.literal('connected'), version: z.string().optional() }),
  Start,
  z.object({
    event: z.literal('media'),
    sequence_number: z.string().optional(),
    media: z.object({ track: z.string().optional(), payload: z.string() }),
  }),
  z.object({
    event: z.literal('dtmf'),
    sequence_number: z.string().optional(),
    dtmf: z.object({ digit: z.string() }),
  }),
  z.object({ event: z.literal('mark'), sequence_number: z.string().optional(), mark: z.object({ name: z.string() }) }),
  z.object({ event: z.literal('error'), payload: z.record(z.string(), z.unknown()).optional() }),
  z.object({ event: z.literal('stop'), sequence_number: z.string().optional() }),
]);
export type TelnyxInboundFrame = z.infer<typeof TelnyxInboundFrame>;

/** Outbound in `rtp` bidirectional mode: base64 RTP payload (no header), mark, clear. */
export const telnyxMedia = (payload: Uint8Array) =>
  JSON.stringify({ event: 'media', media: { payload: Buffer.from(payload).toString('base64') } });
export const telnyxMark = (name: string) => JSON.stringify({ event: 'mark', mark: { name } });
export const telnyxClear = () => JSON.stringify({ event: 'clear' });
