/** Turns a PCM16 LE byte stream into samples; a byte split across chunks is carried to the next. */
export class PcmChunker {
  private carry: Buffer | null = null;

  push(bytes: Buffer): Int16Array {
    const all = this.carry ? Buffer.concat([this.carry, bytes]) : bytes;
    const even = all.length - (all.length % 2);
    this.carry = even < all.length ? Buffer.from(all.subarray(even)) : null;
    const samples = new Int16Array(even / 2);
    for (let i = 0; i < samples.length; i++) samples[i] = all.readInt16LE(i * 2);
    return samples;
  }
}
