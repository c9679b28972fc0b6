import OpusScript from 'opusscript';
import { RationalResampler } from '../rational-resample';

/** WebRTC's Opus clock and the pipeline's: browsers send 48 kHz, the pipeline speaks 8 kHz PCM16. */
export const OPUS_RATE = 48_000;
const PIPELINE_RATE = 8_000;
/** 20 ms, the frame browsers send and we send back. */
export const OPUS_FRAME_SAMPLES = 960;

/** Caller audio from the browser: each Opus packet decoded (mono) and brought down to 8 kHz. */
export class OpusToPipeline {
  private readonly decoder = new OpusScript(OPUS_RATE, 1, OpusScript.Application.VOIP);
  private readonly resampler = new RationalResampler(OPUS_RATE, PIPELINE_RATE);

  /** PCM16 at 8 kHz; empty for a packet that does not decode (it is dropped, as a lost one would be). */
  decode(packet: Buffer): Int16Array {
    let pcm: Buffer;
    try {
      pcm = this.decoder.decode(packet);
    } catch {
      return new Int16Array(0);
    }
    const samples = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.byteLength));
    return this.resampler.process(samples);
  }

  close(): void {
    this.decoder.delete();
  }
}

/** Agent audio to the browser: 8 kHz PCM16 up to 48 kHz, cut into 20 ms Opus frames. */
export class PipelineToOpus {
  private readonly encoder = new OpusScript(OPUS_RATE, 1, OpusScript.Application.VOIP);
  private readonly resampler = new RationalResampler(PIPELINE_RATE, OPUS_RATE);

  /** The 48 kHz samples of `samples` (8 kHz). */
  upsample(samples: Int16Array): Int16Array {
    return this.resampler.process(samples);
  }

  /** One 20 ms frame of 48 kHz samples as an Opus packet. */
  encode(frame: Int16Array): Buffer {
    return this.encoder.encode(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength), OPUS_FRAME_SAMPLES);
  }

  close(): void {
    this.encoder.delete();
  }
}
