import { WAV_HEADER_BYTES } from '../../voice/wav';

/** A sine tone as PCM16. */
export function tone(frequency: number, sampleRate: number, seconds: number, amplitude = 8000): Int16Array {
  const samples = new Int16Array(Math.round(sampleRate * seconds));
  for (let i = 0; i < samples.length; i++) {
    samples[i] = Math.round(amplitude * Math.sin((2 * Math.PI * frequency * i) / sampleRate));
  }
  return samples;
}

/** Amplitude of one frequency in a signal (Goertzel), in the signal's units. */
export function amplitudeAt(samples: Int16Array, frequency: number, sampleRate: number): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / sampleRate);
  let previous = 0;
  let beforePrevious = 0;
  for (const sample of samples) {
    const current = sample + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  const power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
  return (2 * Math.sqrt(Math.max(power, 0))) / samples.length;
}

export const decibels = (ratio: number): number => 20 * Math.log10(ratio);

/** Signal-to-noise ratio of `actual` against `expected`, in dB. */
export function snr(expected: Int16Array, actual: Int16Array): number {
  let signal = 0;
  let noise = 0;
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i] ?? 0;
    signal += e * e;
    noise += (e - (actual[i] ?? 0)) ** 2;
  }
  return 10 * Math.log10(signal / noise);
}

/** Root mean square of PCM16 samples (0 for none). */
export const rms = (samples: Int16Array): number =>
  samples.length === 0 ? 0 : Math.sqrt(samples.reduce((sum, sample) => sum + sample * sample, 0) / samples.length);

/** The caller (left) and agent (right) tracks of a call's two-track PCM16 recording. */
export function recordingTracks(wav: Buffer): { caller: Int16Array; agent: Int16Array } {
  const frames = Math.floor((wav.length - WAV_HEADER_BYTES) / 4);
  const caller = new Int16Array(frames);
  const agent = new Int16Array(frames);
  for (let i = 0; i < frames; i++) {
    caller[i] = wav.readInt16LE(WAV_HEADER_BYTES + i * 4);
    agent[i] = wav.readInt16LE(WAV_HEADER_BYTES + i * 4 + 2);
  }
  return { caller, agent };
}
