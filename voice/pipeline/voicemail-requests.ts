import { z } from 'zod';
import { listenOnChannel, type ChannelListener } from '../../entities/repositories/notification.repository';
import type { Logger } from '../../platform/logger';
import { parseJson } from '../../platform/json';

/**
 * The PostgreSQL channel on which call workflows ask live conversations to leave a voicemail. A
 * call's media stream is held by one API process, which no workflow or worker can address; every
 * API process listens, and the one holding the run's conversation speaks the message.
 */
export const VOICEMAIL_CHANNEL = 'switchboard_live_voicemail';

/** PostgreSQL refuses NOTIFY payloads of 8,000 bytes or more. */
export const MAX_VOICEMAIL_PAYLOAD_BYTES = 7_900;

const voicemailRequest = z.object({ runId: z.number().int().positive(), text: z.string().min(1) });
export type VoicemailRequest = z.infer<typeof voicemailRequest>;

/** The request as a NOTIFY payload; null when it is too long to be one. */
export function voicemailPayload(request: VoicemailRequest): string | null {
  const payload = JSON.stringify(request);
  return Buffer.byteLength(payload) <= MAX_VOICEMAIL_PAYLOAD_BYTES ? payload : null;
}

/**
 * A request that arrives before its conversation registers (a machine detected at the answer,
 * while the stream is still opening) waits this long for it; runs held by other processes' streams
 * are forgotten after it too.
 */
const PENDING_MS = 30_000;
/** Pending requests kept at most, whatever their age: every API process hears every request. */
const MAX_PENDING = 10_000;

type Speak = (text: string) => void;

/** The live conversations of this process that may be asked to leave a voicemail, by run id. */
export class VoicemailRequests {
  private readonly speakers = new Map<number, Speak>();
  private readonly pending = new Map<number, { text: string; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The conversation of `runId` takes requests from now until the returned function is called. */
  register(runId: number, speak: Speak): () => void {
    this.speakers.set(runId, speak);
    const waiting = this.pending.get(runId);
    this.pending.delete(runId);
    if (waiting && this.now() - waiting.at <= PENDING_MS) speak(waiting.text);
    return () => {
      if (this.speakers.get(runId) === speak) this.speakers.delete(runId);
    };
  }

  deliver({ runId, text }: VoicemailRequest): void {
    const speak = this.speakers.get(runId);
    if (speak) {
      speak(text);
      return;
    }
    this.forgetOld();
    if (this.pending.size >= MAX_PENDING) {
      const oldest = this.pending.keys().next();
      if (!oldest.done) this.pending.delete(oldest.value);
    }
    this.pending.delete(runId);
    this.pending.set(runId, { text, at: this.now() });
  }

  /** Requests still waiting for their conversation (tests). */
  get waiting(): number {
    return this.pending.size;
  }

  private forgetOld(): void {
    // Insertion order is arrival order: the old ones are first.
    for (const [runId, { at }] of this.pending) {
      if (this.now() - at <= PENDING_MS) return;
      this.pending.delete(runId);
    }
  }
}

export type VoicemailListener = ChannelListener;

/**
 * LISTENs on `VOICEMAIL_CHANNEL` over one connection of its own (held for the process's life, never
 * for a client) and hands each well-formed request to `requests`. A lost connection is opened again
 * after a second; a request sent meanwhile is lost, and its call workflow hangs up without a message.
 */
export function listenForVoicemailRequests(
  databaseUrl: string,
  requests: VoicemailRequests,
  logger: Logger,
): Promise<VoicemailListener> {
  const log = logger.child({ component: 'voicemail-requests' });
  return listenOnChannel(
    databaseUrl,
    { channel: VOICEMAIL_CHANNEL, applicationName: 'switchboard-voicemail', label: 'voicemail request' },
    (payload) => {
      const parsed = voicemailRequest.safeParse(parseJson(payload));
      if (parsed.success) requests.deliver(parsed.data);
      else log.warn('malformed voicemail request ignored');
    },
    log,
  );
}
