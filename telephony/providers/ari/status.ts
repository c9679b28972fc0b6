import { z } from 'zod';
import { ProviderError, type CallStatus, type StatusEvent } from '../../provider';

/** Channel `state` (a GET, or a ChannelStateChange event) → ours. */
export const CHANNEL_STATE_STATUS: Record<string, CallStatus> = {
  Down: 'initiated',
  Rsrved: 'initiated',
  OffHook: 'initiated',
  Dialing: 'initiated',
  'Dialing Offhook': 'initiated',
  'Pre-ring': 'initiated',
  Unknown: 'initiated',
  Ring: 'ringing',
  Ringing: 'ringing',
  Up: 'answered',
  Busy: 'busy',
};

/** `Dial.dialstatus`; the empty value means the peer is being dialled. */
const DIAL_STATUS: Record<string, CallStatus> = {
  '': 'ringing',
  ANSWER: 'answered',
  BUSY: 'busy',
  NOANSWER: 'no-answer',
  CANCEL: 'canceled',
  CONGESTION: 'failed',
  CHANUNAVAIL: 'failed',
};

/** Q.850 cause of a channel destroyed before it was answered (provider-wire-formats §7.3). */
const UNANSWERED_CAUSE_STATUS: Record<number, CallStatus> = {
  16: 'no-answer',
  17: 'busy',
  18: 'no-answer',
  19: 'no-answer',
  // A rejected call is retried like a busy line.
  21: 'busy',
};

const channelSchema = z.object({
  id: z.string(),
  state: z.string().optional(),
  creationtime: z.string().optional(),
});

export const ariEventSchema = z.object({
  type: z.string(),
  timestamp: z.string().optional(),
  cause: z.number().optional(),
  dialstatus: z.string().optional(),
  channel: channelSchema.optional(),
  peer: channelSchema.optional(),
});
export type AriEvent = z.infer<typeof ariEventSchema>;

/**
 * ARI events describe one moment; the outcome of `ChannelDestroyed` depends on whether the channel entered
 * Stasis (answered) before. The tracker remembers when each channel was answered, so one tracker must see a
 * channel's events in order (the events WebSocket delivers them so).
 */
export class AriCallTracker {
  private readonly answeredAt = new Map<string, number>();

  toStatusEvent(event: AriEvent, raw: Record<string, unknown>): StatusEvent {
    const channel = event.type === 'Dial' ? event.peer : event.channel;
    if (!channel) throw new ProviderError(`ARI event "${event.type}" names no channel`);
    const status = this.statusOf(event, channel);
    if (!status) throw new ProviderError(`ARI event "${event.type}" carries no call status`);
    const durationSeconds = event.type === 'ChannelDestroyed' ? this.durationOf(event, channel) : undefined;
    if (event.type === 'ChannelDestroyed') this.answeredAt.delete(channel.id);
    return { status, providerCallId: channel.id, ...(durationSeconds === undefined ? {} : { durationSeconds }), raw };
  }

  private statusOf(event: AriEvent, channel: z.infer<typeof channelSchema>): CallStatus | undefined {
    switch (event.type) {
      case 'StasisStart':
        this.answeredAt.set(channel.id, timeOf(event.timestamp) ?? Date.now());
        return 'answered';
      case 'ChannelStateChange':
        return CHANNEL_STATE_STATUS[channel.state ?? ''];
      case 'Dial':
        return DIAL_STATUS[event.dialstatus ?? ''];
      case 'ChannelDestroyed':
        if (this.wasAnswered(channel)) return 'completed';
        return UNANSWERED_CAUSE_STATUS[event.cause ?? 0] ?? 'failed';
      default:
        return undefined;
    }
  }

  /** A tracker that joined late (a restart) still knows an answered channel by its last state. */
  private wasAnswered(channel: z.infer<typeof channelSchema>): boolean {
    return this.answeredAt.has(channel.id) || channel.state === 'Up';
  }

  private durationOf(event: AriEvent, channel: z.infer<typeof channelSchema>): number {
    if (!this.wasAnswered(channel)) return 0;
    const start = this.answeredAt.get(channel.id) ?? timeOf(channel.creationtime);
    const end = timeOf(event.timestamp);
    return start === undefined || end === undefined ? 0 : Math.max(0, Math.round((end - start) / 1000));
  }
}

/** ARI timestamps look like `2024-01-01T12:00:05.123+0000`. */
function timeOf(timestamp: string | undefined): number | undefined {
  if (!timestamp) return undefined;
  const ms = Date.parse(timestamp.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
  return Number.isNaN(ms) ? undefined : ms;
}

/** Parses one ARI event (JSON text, as the events WebSocket delivers it). */
export function parseAriEvent(text: string): { event: AriEvent; raw: Record<string, unknown> } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ProviderError('ARI event is not JSON');
  }
  const parsed = ariEventSchema.safeParse(raw);
  if (!parsed.success) throw new ProviderError('ARI message is not an event');
  return { event: parsed.data, raw: raw as Record<string, unknown> };
}
