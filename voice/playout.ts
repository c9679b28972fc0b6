/** The outbound half of a media session: agent audio to the provider, and its clear. */
export interface PlayoutSink {
  play(samples: Int16Array): void;
  clear(): void;
}

/**
 * Agent audio goes out in messages of up to 100 ms: providers buffer what they are sent, and five
 * 20 ms messages cost five socket writes (a tenth of the API's CPU on 100 live calls). Transports
 * whose protocol wants 20 ms frames (Vonage) cut them up themselves; Asterisk re-frames what it gets.
 */
const CHUNK_SAMPLES = 800;
/**
 * How far ahead of the caller stream agent audio is sent: a new chunk goes out while less than
 * 200 ms is waiting to play, so 200 to 300 ms are buffered at the provider, enough to ride out
 * jitter and little to clear.
 */
export const DEFAULT_LEAD_SAMPLES = 1600;

interface Chunk {
  samples: Int16Array;
  /** Called when the chunk's first sample is sent. */
  onSent?: () => void;
}

/**
 * Paces the agent's audio by the caller stream's clock, which providers send continuously (20 ms
 * frames, silence included), as the recording does: audio is sent at most `leadSamples` ahead of
 * where the caller stream is, so the agent is "speaking" exactly while sent audio has not yet
 * played, a barge-in has little to clear, and audio never sent is never heard or recorded.
 */
export class Playout {
  private queue: Chunk[] = [];
  private queued = 0;
  /** Caller samples heard so far: the clock. */
  private clock = 0;
  /** Where on the clock the audio sent so far ends. */
  private sentUntil = 0;
  private paused = false;
  private drainWaiters: (() => void)[] = [];

  /** `startSamples`: where the caller stream already is (the clock starts there, as the recording's does). */
  constructor(
    private readonly sink: PlayoutSink,
    private readonly leadSamples = DEFAULT_LEAD_SAMPLES,
    startSamples = 0,
  ) {
    this.clock = startSamples;
    this.sentUntil = startSamples;
  }

  /** Seconds of caller audio heard: the position in the call's stream (and recording). */
  get seconds(): number {
    return this.clock / 8000;
  }

  /** Agent audio is queued, or sent and not yet played. */
  get speaking(): boolean {
    return this.queued > 0 || this.sentUntil > this.clock;
  }

  /** Agent audio (PCM16, 8 kHz) to play after what is queued. */
  enqueue(samples: Int16Array, onSent?: () => void): void {
    if (samples.length === 0) return;
    this.queue.push({ samples, onSent });
    this.queued += samples.length;
    this.pump();
  }

  /** Caller audio arrived: the clock moves on. */
  tick(samples: number): void {
    this.clock += samples;
    this.pump();
    if (!this.speaking) this.settle();
  }

  /** Holds back audio not yet sent (a caller may be starting to talk); what was sent plays on. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.pump();
  }

  /** Barge-in: drops what is queued and has the provider drop what it has not played. */
  clear(): void {
    this.queue = [];
    this.queued = 0;
    this.paused = false;
    if (this.sentUntil > this.clock) this.sink.clear();
    this.sentUntil = this.clock;
    this.settle();
  }

  /** Resolves once nothing is queued and everything sent has played (or was cleared). */
  drained(): Promise<void> {
    if (!this.speaking) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private pump(): void {
    if (this.paused) return;
    while (this.queued > 0 && this.sentUntil - this.clock < this.leadSamples) {
      const head = this.queue[0] as Chunk;
      const message = head.samples.subarray(0, CHUNK_SAMPLES);
      if (head.onSent) {
        head.onSent();
        head.onSent = undefined;
      }
      if (message.length === head.samples.length) this.queue.shift();
      else head.samples = head.samples.subarray(message.length);
      this.queued -= message.length;
      this.sentUntil = Math.max(this.sentUntil, this.clock) + message.length;
      this.sink.play(message);
    }
  }

  private settle(): void {
    for (const resolve of this.drainWaiters.splice(0)) resolve();
  }
}
