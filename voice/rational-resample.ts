const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

const clamp16 = (value: number): number => Math.max(-32768, Math.min(32767, Math.round(value)));

/**
 * PCM16 resampling between any two integer rates (e.g. espeak-ng's 22050 Hz to 8 or 16 kHz):
 * conceptually upsample by L, low-pass, keep every M-th sample (L/M = out/in, reduced), computed
 * polyphase so only the taps that meet real input samples are summed. The low-pass is a
 * Hamming-windowed sinc cut off at 0.9 of the lower Nyquist frequency, long enough that its
 * transition band ends at that Nyquist, so what would alias lies in the stopband (about -50 dB).
 * Stateful: a stream may arrive in chunks of any size; the output lags by half the filter length.
 */
export class RationalResampler {
  readonly up: number;
  readonly down: number;
  /** Input samples each output sample is computed from. */
  readonly span: number;
  /** phases[p][m]: the tap that multiplies the input m samples back, for output phase p. */
  private readonly phases: Float64Array[];
  /** The last span-1 input samples, oldest first. */
  private history: Float64Array;
  /** Index (in input samples) of the newest sample the next output needs, and its phase. */
  private nextInput = 0;
  private phase = 0;
  private consumed = 0;

  constructor(
    readonly inRate: number,
    readonly outRate: number,
  ) {
    if (!Number.isInteger(inRate) || !Number.isInteger(outRate) || inRate <= 0 || outRate <= 0) {
      throw new Error(`resampler rates must be positive integers, got ${inRate} -> ${outRate}`);
    }
    const divisor = gcd(inRate, outRate);
    this.up = outRate / divisor;
    this.down = inRate / divisor;
    const nyquist = Math.min(inRate, outRate) / 2;
    const cutoff = 0.9 * nyquist;
    // A Hamming window's transition is about 3.3 / N of the filter's rate; make it 2 * (nyquist - cutoff).
    this.span = Math.max(8, Math.ceil((3.3 * inRate) / (2 * (nyquist - cutoff))));
    const count = this.span * this.up;
    const fc = cutoff / (inRate * this.up);
    const middle = (count - 1) / 2;
    const taps = new Float64Array(count);
    let sum = 0;
    for (let n = 0; n < count; n++) {
      const x = n - middle;
      const sinc = x === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * x) / (Math.PI * x);
      taps[n] = sinc * (0.54 - 0.46 * Math.cos((2 * Math.PI * n) / (count - 1)));
      sum += taps[n] ?? 0;
    }
    // Unity DC gain per output: zero stuffing leaves each phase 1/up of the taps' sum.
    this.phases = Array.from({ length: this.up }, (_, p) =>
      Float64Array.from({ length: this.span }, (_unused, m) => ((taps[p + m * this.up] ?? 0) / sum) * this.up),
    );
    this.history = new Float64Array(this.span - 1);
  }

  process(input: Int16Array): Int16Array {
    const keep = this.span - 1;
    const buffer = new Float64Array(keep + input.length);
    buffer.set(this.history);
    buffer.set(input, keep);
    const available = this.consumed + input.length;
    const out: number[] = [];
    while (this.nextInput < available) {
      const taps = this.phases[this.phase] ?? new Float64Array(0);
      // buffer index of input sample `nextInput`; tap m reaches m samples further back.
      const newest = this.nextInput - this.consumed + keep;
      let acc = 0;
      for (let m = 0; m < taps.length; m++) acc += (taps[m] ?? 0) * (buffer[newest - m] ?? 0);
      out.push(clamp16(acc));
      this.phase += this.down;
      this.nextInput += Math.floor(this.phase / this.up);
      this.phase %= this.up;
    }
    this.history = buffer.slice(buffer.length - keep);
    this.consumed = available;
    return Int16Array.from(out);
  }

  /** The tail the filter still holds (end of a stream): feeds silence for its length. */
  flush(): Int16Array {
    return this.process(new Int16Array(Math.ceil(this.span / 2)));
  }
}
