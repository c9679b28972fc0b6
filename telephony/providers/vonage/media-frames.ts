import { z } from 'zod';

/**
 * Vonage WebSocket text frames (provider-wire-formats §5.5). The first frame is JSON: the
 * `content-type` plus every NCCO `headers` entry, with `event: "websocket:connected"` in newer
 * docs and without it in older ones. Audio frames are binary (not described here).
 */
export const VonageConnected = z
  .object({ event: z.literal('websocket:connected').optional(), 'content-type': z.string() })
  .catchall(z.unknown());

/** Later text events; DTMF per Vonage's WebSocket guide (`digit` at the top level). */
export const VonageEvent = z.discriminatedUnion('event', [
  z.object({ event: z.literal('websocket:cleared') }),
  z.object({ event: z.literal('websocket:notify'), payload: z.record(z.string(), z.unknown()).optional() }),
  z.object({ event: z.literal('websocket:dtmf'), digit: z.string() }),
]);

/** `audio/l16;rate=16000` to 16000; the rates Vonage offers are 8, 16 and 24 kHz. */
export function l16Rate(contentType: string): number | null {
  const match = /^audio\/l16;\s*rate=(\d+)$/i.exec(contentType.trim());
  return match?.[1] ? Number(match[1]) : null;
}

/** Outbound control: clear (acknowledged by `websocket:cleared`) and notify (echoed once played). */
export const vonageClear = () => JSON.stringify({ action: 'clear' });
export const vonageNotify = (name: string) => JSON.stringify({ action: 'notify', payload: { name } });
