import { z } from 'zod';

/**
 * chan_websocket control events (provider-wire-formats §7.4), as plain text
 * (`MEDIA_START connection_id:… channel:… format:ulaw optimal_frame_size:160 ptime:20`, the default)
 * or JSON (`control_message_format=json`, Asterisk 22.8/20.18+). Both are read into one object.
 */
export type ControlFormat = 'plain-text' | 'json';

export function readControl(text: string): { format: ControlFormat; fields: Record<string, unknown> } | null {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const value = JSON.parse(trimmed) as unknown;
      return value && typeof value === 'object' ? { format: 'json', fields: value as Record<string, unknown> } : null;
    } catch {
      return null;
    }
  }
  const [event, ...pairs] = trimmed.split(/\s+/);
  if (!event) return null;
  const fields: Record<string, unknown> = { event };
  for (const pair of pairs) {
    const at = pair.indexOf(':');
    if (at > 0) fields[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return { format: 'plain-text', fields };
}

/** Plain text carries every value as a string: numbers are coerced. */
export const AriControlEvent = z.discriminatedUnion('event', [
  z.object({
    event: z.literal('MEDIA_START'),
    connection_id: z.string(),
    channel: z.string().optional(),
    channel_id: z.string().optional(),
    format: z.string(),
    optimal_frame_size: z.coerce.number().optional(),
    ptime: z.coerce.number().optional(),
  }),
  z.object({ event: z.literal('DTMF_END'), digit: z.string() }),
  // The argument name follows STOP_MEDIA_BUFFERING's `correlation_id` (Asterisk's JSON control commit).
  z.object({ event: z.literal('MEDIA_MARK_PROCESSED'), correlation_id: z.string() }),
]);
export type AriControlEvent = z.infer<typeof AriControlEvent>;

/** A command in the format Asterisk speaks on this channel. */
export function ariCommand(format: ControlFormat, command: string, args: Record<string, string> = {}): string {
  if (format === 'json') return JSON.stringify({ command, ...args });
  return [command, ...Object.entries(args).map(([name, value]) => `${name}:${value}`)].join(' ');
}
