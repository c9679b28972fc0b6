import type { TwoTrackRecorder } from './two-track-recorder';

/** What a provider said about the stream when it began (Twilio `start`, Plivo `start`, Vonage's first frame…). */
export interface StreamStart {
  /** The provider's id of this stream (Twilio `streamSid`). */
  streamId: string;
  /** The provider's call id (Twilio `CallSid`), when the protocol carries it. */
  providerCallId: string | null;
  /** The audio on the wire, e.g. `audio/x-mulaw` at 8000 Hz, 1 channel. */
  mediaFormat: { encoding: string; sampleRate: number; channels: number };
  customParameters: Record<string, string>;
}

/**
 * What happens in a call's conversation, as it happens: the caller began to speak, a turn (what
 * the caller said), a reply (what the agent said), the conversation `ended` (with its reason).
 */
export interface ConversationEvent {
  type: 'speech_started' | 'interrupted' | 'turn' | 'reply' | 'ended';
  /** Wall clock, ms. */
  at: number;
  text?: string;
  reason?: string;
}

/** One provider's wire protocol, outbound direction: PCM16 at 8 kHz in, the provider's frames out. */
export interface MediaTransport {
  sendAudio(samples: Int16Array): void;
  /** Asks the provider to report back when the audio sent so far has played. */
  sendMark(name: string): void;
  /** Drops the audio the provider has buffered but not played (barge-in). */
  clear(): void;
  /** Tells the other party's client what happens in the conversation (a web call's page); phone lines have none. */
  announce?(event: ConversationEvent): void;
}

/** What the speech pipeline (and anything else) hears from a call's media stream. */
export interface MediaListener {
  onStart?(start: StreamStart): void;
  /** Caller audio, PCM16 at 8 kHz. */
  onCallerAudio?(samples: Int16Array): void;
  /** The provider played everything up to this mark. */
  onMark?(name: string): void;
  onDtmf?(digit: string): void;
  onEnd?(): void;
}

/**
 * A call's media, provider-neutral: the provider's endpoint feeds it caller audio and events in
 * PCM16, listeners hear them, and `play` sends agent audio back. Both directions are recorded.
 */
export class MediaSession {
  private readonly listeners: MediaListener[] = [];
  private started: StreamStart | null = null;
  private ended: Promise<void> | null = null;
  private heard = 0;

  constructor(
    readonly runId: number,
    private readonly transport: MediaTransport,
    private readonly recorder: TwoTrackRecorder,
    private readonly onEnded: (recorder: TwoTrackRecorder) => Promise<void>,
  ) {
    // A stream that came back carries on its call's recording, and its clock.
    this.heard = recorder.frames;
  }

  /** `listener` hears the stream from now until the returned function is called. */
  listen(listener: MediaListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  get start(): StreamStart | null {
    return this.started;
  }

  /** Caller samples received so far: the stream's (and the recording's) clock, at 8 kHz. */
  get callerSamples(): number {
    return this.heard;
  }

  get isEnded(): boolean {
    return this.ended !== null;
  }

  // From the provider.
  streamStarted(start: StreamStart): void {
    this.started = start;
    for (const listener of this.listeners) listener.onStart?.(start);
  }

  callerAudio(samples: Int16Array): void {
    this.heard += samples.length;
    this.recorder.caller(samples);
    for (const listener of this.listeners) listener.onCallerAudio?.(samples);
  }

  markPlayed(name: string): void {
    for (const listener of this.listeners) listener.onMark?.(name);
  }

  dtmf(digit: string): void {
    for (const listener of this.listeners) listener.onDtmf?.(digit);
  }

  /** The stream is over (provider `stop`, or the socket closed); idempotent. Closes the recording. */
  end(): Promise<void> {
    this.ended ??= (async () => {
      for (const listener of this.listeners) listener.onEnd?.();
      await this.recorder.close();
      await this.onEnded(this.recorder);
    })();
    return this.ended;
  }

  // To the provider.
  play(samples: Int16Array): void {
    if (this.ended) return;
    this.recorder.agent(samples);
    this.transport.sendAudio(samples);
  }

  announce(event: ConversationEvent): void {
    if (!this.ended) this.transport.announce?.(event);
  }

  mark(name: string): void {
    if (!this.ended) this.transport.sendMark(name);
  }

  clear(): void {
    if (this.ended) return;
    this.recorder.clearAgent();
    this.transport.clear();
  }
}
