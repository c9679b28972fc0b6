import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { WAV_HEADER_BYTES, wavHeader } from './wav';

export const RECORDING_SAMPLE_RATE = 8000;
const CHANNELS = 2;
const FRAME_BYTES = CHANNELS * 2;
/**
 * Frames are written a second at a time: one write per 20 ms caller frame cost the API's event
 * loop more than the rest of the recording (bench:voice), and a second is all a crash can lose.
 */
const WRITE_BYTES = RECORDING_SAMPLE_RATE * FRAME_BYTES;

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
  /** Interleaved frames not yet written, and where in the file they go. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
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

  /** Caller audio, PCM16 at 8 kHz. */
  caller(samples: Int16Array): void {
    if (this.closed || samples.length === 0) return;
    this.append(samples, this.takeAgent(samples.length));
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

  /** Seconds written so far (both tracks have this length). */
  get durationSeconds(): number {
    return this.dataBytes / FRAME_BYTES / RECORDING_SAMPLE_RATE;
  }

  /** Writes the agent audio still queued (against caller silence), fixes the header, closes the file. */
  async close(): Promise<void> {
    if (this.closed) return this.writes;
    if (this.agentQueued > 0) this.append(new Int16Array(this.agentQueued), this.takeAgent(this.agentQueued));
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

  /** The next `count` agent samples, silence where none are queued. */
  private takeAgent(count: number): Int16Array {
    const out = new Int16Array(count);
    let filled = 0;
    while (filled < count && this.agentQueue.length > 0) {
      const head = this.agentQueue[0] as Int16Array;
      const used = Math.min(head.length, count - filled);
      out.set(head.subarray(0, used), filled);
      filled += used;
      if (used === head.length) this.agentQueue.shift();
      else this.agentQueue[0] = head.subarray(used);
    }
    this.agentQueued -= filled;
    return out;
  }

  private append(left: Int16Array, right: Int16Array): void {
    // Interleaved through a typed array: native byte order, little-endian as WAV on x86-64 and ARM64.
    const interleaved = new Int16Array(left.length * CHANNELS);
    for (let i = 0; i < left.length; i++) {
      interleaved[i * 2] = left[i] ?? 0;
      interleaved[i * 2 + 1] = right[i] ?? 0;
    }
    const frames = Buffer.from(interleaved.buffer, interleaved.byteOffset, interleaved.byteLength);
    this.dataBytes += frames.length;
    this.pending.push(frames);
    this.pendingBytes += frames.length;
    if (this.pendingBytes >= WRITE_BYTES) this.flush();
  }

  /** Writes the frames gathered so far in one positional write, after the writes before it. */
  private flush(): void {
    if (this.pendingBytes === 0) return;
    const chunk = Buffer.concat(this.pending, this.pendingBytes);
    const position = this.pendingPosition;
    this.pendingPosition += chunk.length;
    this.pending = [];
    this.pendingBytes = 0;
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
