import { OPUS_FRAME_SAMPLES, OpusToPipeline, PipelineToOpus } from '../../voice/webrtc/opus-audio';
import { amplitudeAt, tone } from './audio-helpers';

describe("a web call's audio: 8 kHz PCM16 to 48 kHz Opus and back", () => {
  it('keeps a tone in the speech band through upsampling, Opus encoding, decoding and downsampling', () => {
    const encoder = new PipelineToOpus();
    const decoder = new OpusToPipeline();
    const input = tone(440, 8000, 1);
    const upsampled = encoder.upsample(input);
    // Five 8 kHz samples make thirty at 48 kHz, less the filter's warm-up.
    expect(Math.abs(upsampled.length - input.length * 6)).toBeLessThan(400);
    const decoded: Int16Array[] = [];
    for (let at = 0; at + OPUS_FRAME_SAMPLES <= upsampled.length; at += OPUS_FRAME_SAMPLES) {
      const packet = encoder.encode(upsampled.subarray(at, at + OPUS_FRAME_SAMPLES));
      expect(packet.length).toBeGreaterThan(0);
      decoded.push(decoder.decode(packet));
    }
    // 20 ms of 48 kHz Opus comes back as 20 ms at 8 kHz.
    expect(decoded.slice(5).every((frame) => Math.abs(frame.length - 160) <= 1)).toBe(true);
    const output = Int16Array.from(decoded.flatMap((frame) => [...frame]));
    const steady = output.subarray(2000);
    expect(amplitudeAt(steady, 440, 8000)).toBeGreaterThan(8000 * 0.7);
    expect(amplitudeAt(steady, 1500, 8000)).toBeLessThan(8000 * 0.05);
    encoder.close();
    decoder.close();
  });

  it('drops a packet that is not Opus instead of failing the call', () => {
    const decoder = new OpusToPipeline();
    expect(decoder.decode(Buffer.from([0xff, 0xff, 0xff]))).toHaveLength(0);
    decoder.close();
  });
});
