/**
 * 8 kHz <-> 16 kHz PCM16 resampling by a factor of two with one low-pass FIR: a 31-tap windowed
 * sinc (Hamming window) cut off at 3.8 kHz, run at 16 kHz. Upsampling stuffs a zero between samples
 * and filters (gain 2, removing the 4-8 kHz image); downsampling filters and keeps every other
 * sample (removing what would alias). The filters keep their history, so a stream may be fed in
 * frames of any size; the output lags the input by 15 samples at 16 kHz (under 1 ms).
 */
const TAPS = 31;
const CUTOFF_HZ = 3800;
const RATE_HZ = 16000;

const LOW_PASS: Float64Array = (() => {
  const taps = new Float64Array(TAPS);
  const middle = (TAPS - 1) / 2;
  const fc = CUTOFF_HZ / RATE_HZ;
  let sum = 0;
  for (let n = 0; n < TAPS; n++) {
    const x = n - middle;
    const sinc = x === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * x) / (Math.PI * x);
    const hamming = 0.54 - 0.46 * Math.cos((2 * Math.PI * n) / (TAPS - 1));
    taps[n] = sinc * hamming;
    sum += taps[n] ?? 0;
  }
  // Unity gain at DC.
  return taps.map((tap) => tap / sum);
})();

const clamp16 = (value: number): number => Math.max(-32768, Math.min(32767, Math.round(value)));

/** The low-pass over a 16 kHz stream, remembering the last TAPS-1 samples between calls. */
class LowPass16k {
  private history = new Float64Array(TAPS - 1);

  /** Filters `input` times `gain`, computing every `step`-th output only (2: decimation). */
  run(input: Float64Array, gain: number, step: number): Int16Array {
    const span = new Float64Array(this.history.length + input.length);
    span.set(this.history);
    span.set(input, this.history.length);
    const out = new Int16Array(Math.ceil(input.length / step));
    for (let i = 0, o = 0; i < input.length; i += step, o++) {
      let acc = 0;
      // span index of input[i] is i + TAPS - 1; tap k multiplies the sample k steps back.
      for (let k = 0; k < TAPS; k++) acc += (LOW_PASS[k] ?? 0) * (span[i + TAPS - 1 - k] ?? 0);
      out[o] = clamp16(acc * gain);
    }
    this.history = span.slice(span.length - (TAPS - 1));
    return out;
  }
}

/** 8 kHz to 16 kHz (e.g. caller µ-law audio to a 16 kHz speech-to-text). */
export class Upsampler8kTo16k {
  private readonly filter = new LowPass16k();

  process(samples: Int16Array): Int16Array {
    const stuffed = new Float64Array(samples.length * 2);
    for (let i = 0; i < samples.length; i++) stuffed[i * 2] = samples[i] ?? 0;
    return this.filter.run(stuffed, 2, 1);
  }
}

/** 16 kHz to 8 kHz (e.g. 16 kHz text-to-speech to a µ-law phone line). Feed even-length frames. */
export class Downsampler16kTo8k {
  private readonly filter = new LowPass16k();

  process(samples: Int16Array): Int16Array {
    return this.filter.run(Float64Array.from(samples), 1, 2);
  }
}
