/**
 * 24 kHz PCM16 (what OpenAI's `pcm` speech format is) down to 8 or 16 kHz: upsample by L (1 or 2,
 * zero stuffing), low-pass with a Hamming-windowed sinc at 0.45 of the output rate, keep every
 * third sample. Stateful, so a stream may arrive in chunks of any size.
 */
export class Resampler24k {
  private readonly up: number;
  private readonly taps: Float64Array;
  /** The last taps.length upsampled values, oldest first (a ring would be faster; this is small). */
  private readonly window: Float64Array;
  private phase = 0;

  constructor(outRate: 8000 | 16000) {
    this.up = outRate === 16000 ? 2 : 1;
    const count = 32 * this.up * 2 + 1;
    const fc = (0.45 * outRate) / (24000 * this.up);
    const middle = (count - 1) / 2;
    const taps = new Float64Array(count);
    let sum = 0;
    for (let n = 0; n < count; n++) {
      const x = n - middle;
      const sinc = x === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * x) / (Math.PI * x);
      taps[n] = sinc * (0.54 - 0.46 * Math.cos((2 * Math.PI * n) / (count - 1)));
      sum += taps[n] ?? 0;
    }
    // Unity DC gain after zero stuffing: each tap set sees 1/up of the energy.
    this.taps = taps.map((tap) => (tap / sum) * this.up);
    this.window = new Float64Array(count);
  }

  process(input: Int16Array): Int16Array {
    const out: number[] = [];
    const { taps, window } = this;
    for (const sample of input) {
      for (let k = 0; k < this.up; k++) {
        window.copyWithin(0, 1);
        window[window.length - 1] = k === 0 ? sample : 0;
        if (this.phase++ % 3 !== 0) continue;
        let acc = 0;
        for (let t = 0; t < taps.length; t++) acc += (taps[t] ?? 0) * (window[window.length - 1 - t] ?? 0);
        out.push(Math.max(-32768, Math.min(32767, Math.round(acc))));
      }
    }
    return Int16Array.from(out);
  }
}
