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
