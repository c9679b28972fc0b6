import { createWriteStream } from 'node:fs';
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { WAV_HEADER_BYTES, wavHeader } from './wav';

export const RECORDING_SAMPLE_RATE = 8000;
const CHANNELS = 2;
const FRAME_BYTES = CHANNELS * 2;
/**
 * Frames are written a second at a time: one write per 20 ms caller frame cost the API's event
 * loop more than the rest of the recording (bench:voice), and a second is all a crash can lose.
 * They are interleaved straight into that second's chunk: three typed arrays a frame were a good
 * part of what the API's garbage collector had to sweep at 100 live calls.
 */
const CHUNK_FRAMES = RECORDING_SAMPLE_RATE;

/**
 * A call's stereo recording, streamed to a WAV file: left = caller, right = agent, 16-bit, 8 kHz.
 * The caller stream is the clock (providers send it continuously, silence included): each caller
 * frame is written at once, paired with the agent audio queued for that moment or with silence.
 * Agent audio starts where the caller stream is when it is sent, or after the agent audio still
 * queued (it plays out in real time on the provider's side). Header sizes are fixed up on close.
 */
export class TwoTrackRecorder {
  /** Agent samples not yet paired with caller samples. */
  private agentQueue: Int16Array[] = [];
  private agentQueued = 0;
  private dataBytes = 0;
  /** Interleaved frames not yet written (up to a second's), and where in the file they go. */
  private chunk = new Int16Array(CHUNK_FRAMES * CHANNELS);
  private chunkFrames = 0;
  private pendingPosition = WAV_HEADER_BYTES;
  private writes: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  private closed = false;

  private constructor(
    private readonly file: FileHandle,
    readonly path: string,
  ) {}

  static async create(path: string): Promise<TwoTrackRecorder> {
    await mkdir(dirname(path), { recursive: true });
    const file = await open(path, 'w');
    await file.write(wavHeader(RECORDING_SAMPLE_RATE, CHANNELS, 0), 0, WAV_HEADER_BYTES, 0);
    return new TwoTrackRecorder(file, path);
  }

  /**
   * Carries on a call's recording (its stream came back after a transfer that did not connect):
   * the file at `path`, or the kept one `stored` opens when it was moved away (S3), gets the new
   * frames after its own; with neither, a new recording begins.
   */
  static async resume(path: string, stored: () => Promise<Readable | null>): Promise<TwoTrackRecorder> {
    let size = await sizeOf(path);
    if (size === null) {
      const kept = await stored();
      if (!kept) return TwoTrackRecorder.create(path);
      await mkdir(dirname(path), { recursive: true });
      await pipeline(kept, createWriteStream(path));
      size = (await sizeOf(path)) ?? 0;
    }
    if (size < WAV_HEADER_BYTES) return TwoTrackRecorder.create(path);
    const file = await open(path, 'r+');
    const recorder = new TwoTrackRecorder(file, path);
    // Whole frames only: a torn last frame (a crash mid-write) is written over.
    recorder.dataBytes = Math.floor((size - WAV_HEADER_BYTES) / FRAME_BYTES) * FRAME_BYTES;
    recorder.pendingPosition = WAV_HEADER_BYTES + recorder.dataBytes;
    return recorder;
  }

  /** Caller audio, PCM16 at 8 kHz. */
  caller(samples: Int16Array): void {
    if (this.closed || samples.length === 0) return;
    this.append(samples, samples.length);
  }

  /** Agent audio, PCM16 at 8 kHz, as it is sent to the caller. */
  agent(samples: Int16Array): void {
    if (this.closed || samples.length === 0) return;
    this.agentQueue.push(samples);
    this.agentQueued += samples.length;
  }

  /** Barge-in: the agent audio not yet played never reaches the caller, so it is not recorded either. */
  clearAgent(): void {
    this.agentQueue = [];
    this.agentQueued = 0;
  }

  /** Frames written so far, a carried-on recording's earlier ones included: where the stream's clock starts. */
  get frames(): number {
    return this.dataBytes / FRAME_BYTES;
  }

  /** Seconds written so far (both tracks have this length). */
  get durationSeconds(): number {
    return this.dataBytes / FRAME_BYTES / RECORDING_SAMPLE_RATE;
  }

  /** Writes the agent audio still queued (against caller silence), fixes the header, closes the file. */
  async close(): Promise<void> {
    if (this.closed) return this.writes;
    if (this.agentQueued > 0) this.append(null, this.agentQueued);
    this.flush();
    this.closed = true;
    this.writes = this.writes
      .then(async () => {
        await this.file.write(wavHeader(RECORDING_SAMPLE_RATE, CHANNELS, this.dataBytes), 0, WAV_HEADER_BYTES, 0);
      })
      .finally(() => this.file.close());
    await this.writes;
    if (this.failure) throw this.failure;
  }

  /**
   * `count` frames: the caller's samples (silence for `null`) on the left, the agent audio queued for
   * that moment (or silence) on the right, interleaved straight into the chunk being gathered
   * (native byte order: little-endian, as WAV, on x86-64 and ARM64).
   */
  private append(left: Int16Array | null, count: number): void {
    for (let done = 0; done < count;) {
      const frames = Math.min(count - done, CHUNK_FRAMES - this.chunkFrames);
      const base = this.chunkFrames * CHANNELS;
      const chunk = this.chunk;
      for (let i = 0; i < frames; i++) chunk[base + i * CHANNELS] = left ? (left[done + i] ?? 0) : 0;
      this.takeAgent(base + 1, frames);
      this.chunkFrames += frames;
      done += frames;
      if (this.chunkFrames === CHUNK_FRAMES) this.flush();
    }
    this.dataBytes += count * FRAME_BYTES;
  }

  /** The next `frames` agent samples into the chunk's right channel from `start`, silence where none are queued. */
  private takeAgent(start: number, frames: number): void {
    const chunk = this.chunk;
    let filled = 0;
    while (filled < frames && this.agentQueue.length > 0) {
      const head = this.agentQueue[0] as Int16Array;
      const used = Math.min(head.length, frames - filled);
      for (let i = 0; i < used; i++) chunk[start + (filled + i) * CHANNELS] = head[i] ?? 0;
      filled += used;
      if (used === head.length) this.agentQueue.shift();
      else this.agentQueue[0] = head.subarray(used);
    }
    this.agentQueued -= filled;
    for (; filled < frames; filled++) chunk[start + filled * CHANNELS] = 0;
  }

  /** Writes the frames gathered so far in one positional write, after the writes before it. */
  private flush(): void {
    if (this.chunkFrames === 0) return;
    const chunk = Buffer.from(this.chunk.buffer, 0, this.chunkFrames * FRAME_BYTES);
    const position = this.pendingPosition;
    this.pendingPosition += chunk.length;
    // The write keeps this chunk until it is done; the next frames go to a new one.
    this.chunk = new Int16Array(CHUNK_FRAMES * CHANNELS);
    this.chunkFrames = 0;
    this.writes = this.writes.then(async () => {
      if (this.failure) return;
      try {
        await this.file.write(chunk, 0, chunk.length, position);
      } catch (error) {
        this.failure = error instanceof Error ? error : new Error(String(error));
      }
    });
  }
}

async function sizeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
